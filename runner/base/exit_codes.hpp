#pragma once
// The exit codes of every `runner` command, in one table (README.md "Exit codes" shows it too).
// A script can tell "the study ran and a point failed" (1) from "nothing ran, because of what was
// asked" (2) and "nothing more could run here" (3).
namespace runner::exit_code {

inline constexpr int kOk = 0;           // every point ran and none failed
inline constexpr int kPointFailed = 1;  // the run finished; at least one point failed (its record
                                        // says why); `collect`: every point recorded, some failed
inline constexpr int kUsage = 2;        // a usage or config error (FILE:LINE:COL), or --out holds
                                        // another run and --resume was not given; nothing written
inline constexpr int kRefused = 3;      // refused, or the environment failed: the output folder is
                                        // locked by another runner, cannot be created or written,
                                        // the disk is full; --resume found another config, build
                                        // or device; no worker process could start; `collect`:
                                        // shards of different configs or builds; `submit
                                        // --resume`: an edited OUT/config.yaml
inline constexpr int kIncomplete = 4;   // `collect`: planned points have no record yet (pending,
                                        // killed, cancelled): `runner submit --resume` them
inline constexpr int kAnalysisFailed = 5;  // `report` / `compare` itself failed (a crash: its
                                           // traceback says where; analysis/failures.py), never
                                           // a point of the run nor the gate
// 128 + N: stopped by signal N (129 SIGHUP, 130 SIGINT, 131 SIGQUIT, 138 SIGUSR1, 140 SIGUSR2,
// 142 SIGALRM, 143 SIGTERM, 152 SIGXCPU: the signals Slurm's --signal and CPU-time limits send
// before a job ends). The records
// so far are valid, the manifest says "interrupted", and the resume command was printed.
inline constexpr int kSignalBase = 128;

}  // namespace runner::exit_code
