"""The command line follows the conventions users bring from other tools: NO_COLOR and TERM=dumb
on a real terminal (a pseudo-terminal here), `runner help [COMMAND]`, a man page and bash and zsh
completions generated from the option definitions (never behind them), and an exit code of its
own for a report or compare that crashes.

Usage: command_line_test.py RUNNER_BINARY [-v] (the system Python).
"""
import os
import pathlib
import pty
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUNNER = None

CONFIG = """experiment: tty
kernel: gemm
repeat: {warmup: 1, min_samples: 2, max_samples: 2}
sweeps:
  - {variant: omp_naive, size: [8, 12], threads: [1, 2]}
"""

SGR = re.compile(rb"\x1b\[[0-9;]*m")


def run(*args, **kw):
    return subprocess.run([RUNNER, *args], capture_output=True, text=True, timeout=120, **kw)


def on_a_terminal(args, env, timeout=120):
    """Runs the runner with stdin, stdout and stderr on a pseudo-terminal; returns its exit code
    and every byte it wrote there."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(RUNNER, [RUNNER, *args], env)
    out = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), out


def help_options(text):
    """Option names of a CLI11 or argparse help text."""
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-[a-zA-Z])\b", text))


def commands():
    """Every command path of the binary, from `runner --help` and each command's own help."""
    out = []
    top = run("--help").stdout
    names = re.findall(r"^  (\w+)\s", top.split("Subcommands:")[1], re.M)
    for name in names:
        out.append(name)
        sub = run(name, "--help").stdout if name not in ("report", "compare") else ""
        if "Subcommands:" in sub:
            out += [f"{name} {s}" for s in
                    re.findall(r"^  (\w+)\s", sub.split("Subcommands:")[1], re.M)]
    return out


class TerminalTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = pathlib.Path(cls.tmp.name)
        (cls.dir / "c.yaml").write_text(CONFIG, encoding="utf-8")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_on_terminal(self, name, **env):
        base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")}
        base.update(env)
        code, out = on_a_terminal([str(self.dir / "c.yaml"), "--out", str(self.dir / name),
                                   "--no-calibrate"], base)
        self.assertEqual(code, 0, out.decode(errors="replace"))
        self.assertIn(b"points recorded", out)
        return out

    def test_a_colour_terminal_gets_colours_and_a_rewritten_line(self):
        # The control: on a terminal that can, the runner does colour and rewrite its line.
        out = self.run_on_terminal("colour", TERM="xterm-256color")
        self.assertRegex(out, SGR)
        self.assertIn(b"\r\x1b[K", out)

    def test_no_color_means_no_colour(self):
        out = self.run_on_terminal("no-color", TERM="xterm-256color", NO_COLOR="1")
        self.assertNotRegex(out, SGR)

    def test_a_dumb_terminal_gets_no_escape_and_no_rewritten_line(self):
        out = self.run_on_terminal("dumb", TERM="dumb")
        self.assertNotIn(b"\x1b", out)
        # The terminal turns each newline into \r\n; a bare \r would rewrite a line.
        self.assertNotRegex(out, rb"\r(?!\n)")
        self.assertRegex(out, rb"\[\d+/4 ")  # progress lines, one per update


class HelpTest(unittest.TestCase):
    def test_help_is_the_help_of_the_runner_or_of_a_command(self):
        self.assertEqual(run("help").stdout, run("--help").stdout)
        for words in (["run"], ["columns"], ["plugin", "build"], ["export"]):
            r = run("help", *words)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout, run(*words, "--help").stdout, words)
            self.assertIn("Usage: runner " + " ".join(words), r.stdout)

    def test_help_of_report_and_compare_names_the_runner_command(self):
        for name in ("report", "compare"):
            for r in (run("help", name), run(name, "--help")):
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertTrue(r.stdout.startswith(f"usage: runner {name} "), r.stdout)

    def test_an_unknown_command_is_a_usage_error_with_a_suggestion(self):
        r = run("help", "colums")
        self.assertEqual(r.returncode, 2)
        self.assertIn("did you mean 'columns'", r.stderr)

    def test_report_and_compare_list_the_options_their_scripts_take(self):
        # Their entries in the man page and completions are CLI11's; their parser is argparse's.
        for name in ("report", "compare"):
            listed = help_options(run("help", name).stdout) - {"-h", "--help"}
            page = run("help", "--format", "man").stdout
            section = page.split(f'.SS "runner {name}')[1].split(".SS")[0]
            section = re.sub(r"\\f[BIR]", "", section.replace("\\-", "-"))
            self.assertEqual(help_options(section), listed, name)


class GeneratedFilesTest(unittest.TestCase):
    """share/man/man1/runner.1 and the completions, as the build wrote them beside the binary."""

    @classmethod
    def setUpClass(cls):
        prefix = pathlib.Path(RUNNER).resolve().parents[1]
        cls.man = prefix / "share" / "man" / "man1" / "runner.1"
        cls.bash = prefix / "share" / "bash-completion" / "completions" / "runner"
        cls.zsh = prefix / "share" / "zsh" / "site-functions" / "_runner"
        cls.commands = commands()

    def test_the_build_wrote_them_from_this_binary(self):
        for path, fmt in ((self.man, "man"), (self.bash, "bash"), (self.zsh, "zsh")):
            self.assertTrue(path.is_file(), path)
            self.assertEqual(path.read_text(encoding="utf-8"),
                             run("help", "--format", fmt).stdout, path)

    def test_the_man_page_renders_every_command_and_option(self):
        if not shutil.which("man"):
            self.skipTest("no man")
        r = subprocess.run(["man", "-l", str(self.man)], capture_output=True, text=True,
                           env=dict(os.environ, MANWIDTH="200", MAN_KEEP_FORMATTING="0"),
                           timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        page = re.sub(r".\x08", "", r.stdout)
        for section in ("SYNOPSIS", "COMMANDS", "EXIT STATUS", "ENVIRONMENT"):
            self.assertIn(section, page)
        for name in ("NO_COLOR", "RUNNER_PYTHON", "RUNNER_CALIBRATION_DIR"):
            self.assertIn(name, page)
        for command in self.commands:
            self.assertIn("runner " + command, page)
            if command.split()[0] in ("report", "compare"):
                continue
            for option in help_options(run(*command.split(), "--help").stdout) - {"-h"}:
                self.assertIn(option, page, command)

    def complete_bash(self, *words, cwd=None):
        script = (f"source '{self.bash}'; COMP_WORDS=({' '.join(repr(w) for w in words)}); "
                  f"COMP_CWORD={len(words) - 1}; _runner; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
        with tempfile.TemporaryDirectory() as empty:
            r = subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                               timeout=30, cwd=cwd or empty)
        self.assertEqual(r.returncode, 0, r.stderr)
        return set(r.stdout.split())

    def test_bash_completes_commands_options_and_values(self):
        top = {c for c in self.commands if " " not in c}
        self.assertLessEqual(top, self.complete_bash("runner", ""))
        self.assertEqual(self.complete_bash("runner", "ru"), {"run"})
        self.assertIn("configs/gemm.yaml", self.complete_bash("runner", "configs/ge", cwd=ROOT))
        for command in self.commands:
            if command.split()[0] in ("report", "compare"):
                continue
            options = {o for o in help_options(run(*command.split(), "--help").stdout)
                       if o.startswith("--")}
            self.assertEqual(self.complete_bash("runner", *command.split(), "--"), options,
                             command)
        self.assertEqual(self.complete_bash("runner", "columns", "--format", ""),
                         {"md", "csv", "json"})
        self.assertEqual(self.complete_bash("runner", "plugin", ""), {"build", "abi"})
        self.assertLessEqual({"--fail-above", "--reference", "--fail-on-noise"},
                             self.complete_bash("runner", "compare", "--"))

    def test_zsh_reads_the_completion_and_offers_every_option(self):
        if not shutil.which("zsh"):
            self.skipTest("no zsh")
        r = subprocess.run(["zsh", "-n", str(self.zsh)], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        # _arguments and _describe replaced by stubs that print what they were given: the specs
        # the completion hands zsh for each command line.
        for command in self.commands:
            words = ["runner", *command.split(), ""]
            script = ("_arguments() { printf '%s\\n' \"$@\" }; _describe() { }; _files() { }; "
                      f"source '{self.zsh}'; words=({' '.join(repr(w) for w in words)}); "
                      f"CURRENT={len(words)}; _runner")
            r = subprocess.run(["zsh", "-f", "-c", script], capture_output=True, text=True,
                               timeout=30)
            self.assertEqual(r.returncode, 0, command + r.stderr)
            if command.split()[0] in ("report", "compare"):
                continue
            for option in help_options(run(*command.split(), "--help").stdout):
                self.assertRegex(r.stdout, rf"(?m)(^|\)|\*){re.escape(option)}\[", command)
        r = subprocess.run(["zsh", "-f", "-c", f"_describe() {{ printf '%s\\n' \"${{(@P)4}}\" }}; "
                            f"_files() {{ }}; source '{self.zsh}'; words=(runner ''); CURRENT=2; "
                            "_runner"], capture_output=True, text=True, timeout=30)
        self.assertIn("export:", r.stdout)


class AnalysisPythonTest(unittest.TestCase):
    """The Python of report and compare as users expect it: RUNNER_PYTHON, else the first python3
    on PATH with pandas and matplotlib (a module's or a virtualenv's), else a message naming what
    each lacks."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name)
        self.run_dir = ROOT / "tests" / "analysis" / "fixtures" / "cpu_run"
        # A python3 without pandas: a virtualenv of the system Python without its packages.
        subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", str(self.dir / "bare")],
                       check=True, capture_output=True, timeout=120)
        # A python3 with them that says it ran: what a site module's Python would be.
        good = self.dir / "good" / "python3"
        good.parent.mkdir()
        good.write_text(f"#!/bin/sh\ntouch {self.dir}/good-ran\nexec /usr/bin/python3 \"$@\"\n")
        good.chmod(0o755)

    def tearDown(self):
        self.tmp.cleanup()

    def help_with(self, **env):
        return run("compare", "--help", env=dict(os.environ, **env))

    def test_the_first_python3_on_path_that_has_the_modules(self):
        path = f"{self.dir}/bare/bin:{self.dir}/good:/usr/bin:/bin"
        r = self.help_with(PATH=path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue((self.dir / "good-ran").exists(), "the python3 with pandas was not used")

    def test_a_virtualenv_without_pandas_does_not_hide_the_system_python(self):
        r = self.help_with(PATH=f"{self.dir}/bare/bin:/usr/bin:/bin")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_runner_python_first_and_a_clear_message_when_it_lacks_pandas(self):
        r = self.help_with(RUNNER_PYTHON=str(self.dir / "good" / "python3"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue((self.dir / "good-ran").exists())
        bare = str(self.dir / "bare" / "bin" / "python3")
        r = self.help_with(RUNNER_PYTHON=bare)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn(f"RUNNER_PYTHON={bare} cannot run runner report and compare, which need "
                      "pandas, matplotlib: ModuleNotFoundError: No module named 'pandas'", r.stderr)
        self.assertNotIn("Traceback", r.stderr)


class ExitCodeTest(unittest.TestCase):
    def test_a_crashed_report_or_compare_exits_5_not_1(self):
        # 1 is "a point failed" (or compare's gate); a report that fails is another thing.
        run_dir = ROOT / "tests" / "analysis" / "fixtures" / "cpu_run"
        with tempfile.TemporaryDirectory() as tmp:
            broken = pathlib.Path(tmp) / "columns.json"
            broken.write_text("{not json", encoding="utf-8")
            env = dict(os.environ, RUNNER_COLUMNS_FILE=str(broken))
            for args in (["report", str(run_dir), "--out", str(pathlib.Path(tmp) / "r")],
                         ["compare", str(run_dir), str(run_dir), "--out",
                          str(pathlib.Path(tmp) / "c.csv")]):
                r = run(*args, env=env)
                self.assertEqual(r.returncode, 5, r.stderr)
                self.assertIn("Traceback", r.stderr)
                self.assertIn(f"runner {args[0]} failed", r.stderr)


if __name__ == "__main__":
    RUNNER = os.path.abspath(sys.argv.pop(1))
    unittest.main()
