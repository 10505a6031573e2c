// gemm omp_tiled: C = A·B (row-major, m×k · k×n) with the GotoBLAS/BLIS structure.
//
//   for jc in n, step NC                     B panel: kc×NC, packed once, shared by all threads
//     for pc in k, step KC                     (L3; every thread streams it)
//       pack B[pc:pc+KC, jc:jc+NC] into NR-wide micro-panels (kc×NR each, contiguous)  — threads
//       barrier                                 split the micro-panels between them
//       for ic in this thread's rows, step MC   A block: MC×kc, packed per thread (L2)
//         pack A[ic:ic+MC, pc:pc+KC] into MR-high micro-panels (kc×MR each, contiguous)
//         for jr in this thread's columns, step NR    B micro-panel kc×NR stays in L1 ...
//           for ir in the block, step MR              ... while the A micro-panels go past it
//             micro-kernel: C[ir:ir+MR, jr:jr+NR] (+)= Apanel · Bpanel, MR×NR in registers
//       barrier (nobody reads the B panel any more: the next one may overwrite it)
//
// Threads: the team is a tm×tn grid over (MR-row panels of C) × (NR-column micro-panels of the B
// panel); tm = min(threads, row panels), so square problems are split over rows only (every
// thread packs its own A rows once per B panel) and only a C with fewer row panels than threads
// splits its columns as well. Threads are the runner's pinned OpenMP team (OMP_PROC_BIND=close,
// OMP_PLACES=cores, see runner/cli/main.cpp), sized by the point's `threads`.
//
// Edges: packing pads a partial micro-panel with zeros (rows of A past m, columns of B past n),
// so the micro-kernel always runs full MR×NR×kc; only its store is partial (through a stack
// tile). The first kc block overwrites C (which holds the NaN poison), later ones add to it; k = 0
// writes zeros.
//
// ISA: chosen at run time (__builtin_cpu_supports), not by -march, because the binaries are
// copied between machines. The blocked driver and the micro-kernel are templates inlined
// (always_inline) into one entry function per ISA compiled with __attribute__((target(...))):
//   avx512  avx512f + fma, 32 zmm registers      float 14×32, double 14×16 (2 zmm wide)
//   avx2    avx2 + fma, 16 ymm registers         float 6×16,  double 6×8   (2 ymm wide)
//   generic baseline x86-64 (SSE2, no FMA)       float 6×8,   double 6×4   (2 xmm wide)
// The micro-kernel is written with GCC vector extensions (vector_size = the ISA's register
// width), so g++ -O3 emits vfmadd231p[sd] zmm/ymm with the A element as a broadcast operand.
// RUNNER_GEMM_TILED_ISA=avx512|avx2|generic forces a path (to test the fallbacks on a machine
// that has more); asking for one the CPU lacks falls back to what it has.
//
// Register tiles: MR rows × NV vectors of accumulators + NV vectors of B + 1 broadcast of A
// must fit the register file: AVX-512 14×2 + 2 + 1 = 31 of 32 zmm; AVX2/SSE 6×2 + 2 + 1 = 15 of
// 16. Per k step the 14×32 float kernel issues 28 FMAs for 2 vector loads + 14 broadcasts (the
// 2 FMA ports, not the load ports, are the limit), and 28 independent accumulators hide the
// 4-cycle FMA latency.
// Cache blocks (the same in bytes for float and double, since NR·sizeof(T) = 128 bytes on
// AVX-512): KC = 256 makes a B micro-panel KC×NR = 32 KiB, which stays in a 48 KiB L1d
// (Ice Lake / Sapphire Rapids; on a 32 KiB L1 it is mostly there) while A streams past it;
// MC = 336 (float, 24 panels of 14) / 224 (double, 16) rows make the A block 336 / 448 KiB,
// under half of a 1–2 MiB L2, with room for the B micro-panels moving through (a thread's rows
// are cut into near-equal blocks of at most MC, so no block is a sliver); NC = 4096 (float) /
// 2048 (double) make the shared B panel 4 MiB, in the L3 of any server part. The AVX2 and
// generic paths (NR·sizeof(T) = 64 / 32 bytes) keep KC = 256 and a 144 / 192 KiB A block, for
// the 256 KiB L2 of older AVX2 cores.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "kernels/gemm/gemm_cpu_workload.hpp"
#include "runner/api/variant.hpp"
#include "runner/api/verification.hpp"

namespace runner::kernels::gemm {

namespace {

// --- core begin (the blocked GEMM itself; no runner types below this line until "core end") ---

#define RUNNER_INLINE inline __attribute__((always_inline))

// Tile and block sizes of one ISA and element type.
template <typename T, int MR_, int NV_, int VB_, int KC_, int MC_, int NC_>
struct TileConfig {
  using type = T;
  static constexpr int MR = MR_;  // rows of the register tile
  static constexpr int NV = NV_;  // vectors across the register tile
  static constexpr int VB = VB_;  // bytes of one vector register
  static constexpr int NR = NV_ * VB_ / static_cast<int>(sizeof(T));  // columns of the tile
  static constexpr int KC = KC_, MC = MC_, NC = NC_;
  static_assert(MC_ % MR_ == 0 && NC_ % NR == 0, "cache blocks are whole micro-panels");
};

// Everything the threads of one GEMM share. b_pack holds KC × round_up(NC, NR) elements; each
// thread has its own A buffer of MC × KC elements.
template <typename T>
struct TiledJob {
  const T* a;
  const T* b;
  T* c;
  std::int64_t m, n, k;
  T* b_pack;
  T* const* a_pack;  // [thread]
  int threads;
};

// C[0:mr, 0:nr] (+)= A micro-panel (kc×MR, column of MR per k) · B micro-panel (kc×NR).
template <class Cfg>
RUNNER_INLINE void micro_kernel(std::int64_t kc, const typename Cfg::type* __restrict a,
                                const typename Cfg::type* __restrict b,
                                typename Cfg::type* __restrict c, std::int64_t ldc, int mr, int nr,
                                bool accumulate) {
  using T = typename Cfg::type;
  constexpr int MR = Cfg::MR, NV = Cfg::NV, VL = Cfg::VB / static_cast<int>(sizeof(T)),
                NR = Cfg::NR;
  typedef T V __attribute__((vector_size(Cfg::VB)));

  V acc[MR][NV];
#pragma GCC unroll 64
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) acc[i][v] = V{};
  // The C tile is read (or written) once at the end: ask for its lines now.
  for (int i = 0; i < mr; ++i) __builtin_prefetch(c + i * ldc, 1);

#pragma GCC unroll 4
  for (std::int64_t p = 0; p < kc; ++p) {
    V bv[NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) __builtin_memcpy(&bv[v], b + v * VL, sizeof(V));
#pragma GCC unroll 64
    for (int i = 0; i < MR; ++i) {
      const T ai = a[i];
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[i][v] += ai * bv[v];
    }
    a += MR;
    b += NR;
  }

  if (mr == MR && nr == NR) {
#pragma GCC unroll 64
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        T* cp = c + i * ldc + v * VL;
        V out = acc[i][v];
        if (accumulate) {
          V old;
          __builtin_memcpy(&old, cp, sizeof(V));
          out += old;
        }
        __builtin_memcpy(cp, &out, sizeof(V));
      }
  } else {  // an edge tile: only mr×nr of it is C
    alignas(64) T tile[MR][NR];
#pragma GCC unroll 64
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) __builtin_memcpy(&tile[i][v * VL], &acc[i][v], sizeof(V));
    for (int i = 0; i < mr; ++i)
      for (int j = 0; j < nr; ++j)
        c[i * ldc + j] = accumulate ? c[i * ldc + j] + tile[i][j] : tile[i][j];
  }
}

// Rows [i0, i0+mc) and columns [p0, p0+kc) of A (row-major, lda = k) into MR-high micro-panels:
// panel r holds, for each p, the MR elements A[i0+r·MR+0..MR-1][p0+p]; rows past m are zeros.
template <class Cfg>
RUNNER_INLINE void pack_a(const typename Cfg::type* __restrict a, std::int64_t lda, std::int64_t i0,
                          std::int64_t mc, std::int64_t p0, std::int64_t kc,
                          typename Cfg::type* __restrict dst) {
  using T = typename Cfg::type;
  constexpr int MR = Cfg::MR;
  for (std::int64_t ir = 0; ir < mc; ir += MR) {
    const std::int64_t rows = std::min<std::int64_t>(MR, mc - ir);
    const T* src = a + (i0 + ir) * lda + p0;
    if (rows == MR) {
      for (std::int64_t p = 0; p < kc; ++p)
#pragma GCC unroll 64
        for (int i = 0; i < MR; ++i) dst[p * MR + i] = src[i * lda + p];
    } else {
      for (std::int64_t p = 0; p < kc; ++p)
        for (int i = 0; i < MR; ++i) dst[p * MR + i] = i < rows ? src[i * lda + p] : T(0);
    }
    dst += MR * kc;
  }
}

// Micro-panels [q0, q1) of the B block rows [p0, p0+kc), columns [j0, j0+nc) (row-major, ldb = n):
// panel q holds, for each p, the NR elements B[p0+p][j0+q·NR+0..NR-1]; columns past n are zeros.
template <class Cfg>
RUNNER_INLINE void pack_b(const typename Cfg::type* __restrict b, std::int64_t ldb, std::int64_t p0,
                          std::int64_t kc, std::int64_t j0, std::int64_t nc, std::int64_t q0,
                          std::int64_t q1, typename Cfg::type* __restrict b_pack) {
  using T = typename Cfg::type;
  constexpr int NR = Cfg::NR;
  for (std::int64_t q = q0; q < q1; ++q) {
    const std::int64_t cols = std::min<std::int64_t>(NR, nc - q * NR);
    const T* src = b + p0 * ldb + j0 + q * NR;
    T* dst = b_pack + q * NR * kc;
    if (cols == NR) {
      for (std::int64_t p = 0; p < kc; ++p)
        std::memcpy(dst + p * NR, src + p * ldb, NR * sizeof(T));
    } else {
      for (std::int64_t p = 0; p < kc; ++p)
        for (int j = 0; j < NR; ++j) dst[p * NR + j] = j < cols ? src[p * ldb + j] : T(0);
    }
  }
}

// [begin, end) of part `i` of `parts` near-equal parts of `count` items.
RUNNER_INLINE void split(std::int64_t count, int parts, int i, std::int64_t& begin,
                         std::int64_t& end) {
  begin = count * i / parts;
  end = count * (i + 1) / parts;
}

// The work of thread `tid` of the job's team; called by every thread of one parallel region.
template <class Cfg>
RUNNER_INLINE void tiled_thread(const TiledJob<typename Cfg::type>& job, int tid) {
  using T = typename Cfg::type;
  constexpr int MR = Cfg::MR, NR = Cfg::NR, KC = Cfg::KC, MC = Cfg::MC, NC = Cfg::NC;
  const std::int64_t m = job.m, n = job.n, k = job.k;
  const int threads = job.threads;

  if (k == 0) {  // C = 0: rows split between the threads
    std::int64_t i0, i1;
    split(m, threads, tid, i0, i1);
    for (std::int64_t i = i0; i < i1; ++i)
      for (std::int64_t j = 0; j < n; ++j) job.c[i * n + j] = T(0);
    return;
  }

  // Thread grid: tm groups over row panels, tn over column micro-panels; threads past tm·tn idle.
  const std::int64_t row_panels = (m + MR - 1) / MR;
  const int tm = static_cast<int>(std::min<std::int64_t>(threads, row_panels));
  const int tn = threads / tm;
  const bool computes = tid < tm * tn;
  const int ti = tid / tn, tj = tid % tn;
  std::int64_t rp0 = 0, rp1 = 0;
  if (computes) split(row_panels, tm, ti, rp0, rp1);
  const std::int64_t row0 = rp0 * MR, row1 = std::min(m, rp1 * MR);
  T* a_pack = job.a_pack[tid];
  // The thread's rows in near-equal blocks of at most MC (whole micro-panels), not MC, MC, ...
  // and a sliver: every A block re-reads the whole B panel.
  const std::int64_t my_panels = rp1 - rp0;
  const std::int64_t blocks = std::max<std::int64_t>(1, (my_panels * MR + MC - 1) / MC);
  const std::int64_t mc_step = (my_panels + blocks - 1) / blocks * MR;

  for (std::int64_t jc = 0; jc < n; jc += NC) {
    const std::int64_t nc = std::min<std::int64_t>(NC, n - jc);
    const std::int64_t col_panels = (nc + NR - 1) / NR;
    for (std::int64_t pc = 0; pc < k; pc += KC) {
      const std::int64_t kc = std::min<std::int64_t>(KC, k - pc);
      {
        std::int64_t q0, q1;
        split(col_panels, threads, tid, q0, q1);
        pack_b<Cfg>(job.b, n, pc, kc, jc, nc, q0, q1, job.b_pack);
      }
#pragma omp barrier
      if (computes) {
        std::int64_t cq0, cq1;
        split(col_panels, tn, tj, cq0, cq1);
        for (std::int64_t ic = row0; ic < row1; ic += mc_step) {
          const std::int64_t mc = std::min<std::int64_t>(mc_step, row1 - ic);
          pack_a<Cfg>(job.a, k, ic, mc, pc, kc, a_pack);
          for (std::int64_t q = cq0; q < cq1; ++q) {
            const std::int64_t j = jc + q * NR;
            const int nr = static_cast<int>(std::min<std::int64_t>(NR, n - j));
            const T* bp = job.b_pack + q * NR * kc;
            for (std::int64_t ir = 0; ir < mc; ir += MR) {
              const int mr = static_cast<int>(std::min<std::int64_t>(MR, mc - ir));
              micro_kernel<Cfg>(kc, a_pack + ir * kc, bp, job.c + (ic + ir) * n + j, n, mr, nr,
                                pc > 0);
            }
          }
        }
      }
#pragma omp barrier
    }
  }
}

// One configuration per ISA and type; see the header comment for the choice.
template <typename T>
using Avx512Config =
    TileConfig<T, 14, 2, 64, 256, (sizeof(T) == 4 ? 336 : 224), (sizeof(T) == 4 ? 4096 : 2048)>;
template <typename T>
using Avx2Config =
    TileConfig<T, 6, 2, 32, 256, (sizeof(T) == 4 ? 144 : 96), (sizeof(T) == 4 ? 4096 : 2048)>;
template <typename T>
using GenericConfig =
    TileConfig<T, 6, 2, 16, 256, (sizeof(T) == 4 ? 144 : 96), (sizeof(T) == 4 ? 4096 : 2048)>;

#define RUNNER_AVX512_TARGET \
  __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma,bmi2")))
#define RUNNER_AVX2_TARGET __attribute__((target("avx2,fma,bmi2")))

RUNNER_AVX512_TARGET void tiled_avx512(const TiledJob<float>& job, int tid) {
  tiled_thread<Avx512Config<float>>(job, tid);
}
RUNNER_AVX512_TARGET void tiled_avx512(const TiledJob<double>& job, int tid) {
  tiled_thread<Avx512Config<double>>(job, tid);
}
RUNNER_AVX2_TARGET void tiled_avx2(const TiledJob<float>& job, int tid) {
  tiled_thread<Avx2Config<float>>(job, tid);
}
RUNNER_AVX2_TARGET void tiled_avx2(const TiledJob<double>& job, int tid) {
  tiled_thread<Avx2Config<double>>(job, tid);
}
void tiled_generic(const TiledJob<float>& job, int tid) {
  tiled_thread<GenericConfig<float>>(job, tid);
}
void tiled_generic(const TiledJob<double>& job, int tid) {
  tiled_thread<GenericConfig<double>>(job, tid);
}

enum class Isa { avx512, avx2, generic };

// The widest path this CPU runs, or the narrower one RUNNER_GEMM_TILED_ISA asks for.
Isa tiled_isa() {
  static const Isa isa = [] {
    __builtin_cpu_init();
    Isa best = Isa::generic;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) best = Isa::avx2;
    if (best == Isa::avx2 && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512bw"))
      best = Isa::avx512;
    const char* env = std::getenv("RUNNER_GEMM_TILED_ISA");
    const std::string_view want = env ? env : "";
    if (want == "generic") return Isa::generic;
    if (want == "avx2" && best != Isa::generic) return Isa::avx2;
    return best;
  }();
  return isa;
}

// Sizes of the packing buffers of the selected path.
struct PackSizes {
  std::size_t b_pack, a_pack;
};
template <class Cfg>
PackSizes pack_sizes_of() {
  return {static_cast<std::size_t>(Cfg::KC) * Cfg::NC, static_cast<std::size_t>(Cfg::MC) * Cfg::KC};
}
template <typename T>
PackSizes pack_sizes(Isa isa) {
  switch (isa) {
    case Isa::avx512:
      return pack_sizes_of<Avx512Config<T>>();
    case Isa::avx2:
      return pack_sizes_of<Avx2Config<T>>();
    case Isa::generic:
      break;
  }
  return pack_sizes_of<GenericConfig<T>>();
}

// C = A·B on `threads` OpenMP threads with the packing buffers given.
template <typename T>
void tiled_gemm(Isa isa, TiledJob<T>& job) {
  void (*fn)(const TiledJob<T>&, int) = tiled_generic;
  if (isa == Isa::avx512) fn = tiled_avx512;
  if (isa == Isa::avx2) fn = tiled_avx2;
#pragma omp parallel num_threads(job.threads)
  {
    // A team smaller than asked for (OMP_THREAD_LIMIT, nested regions) still covers all of C.
    TiledJob<T> mine = job;
    mine.threads = omp_get_num_threads();
    fn(mine, omp_get_thread_num());
  }
}

// --- core end ---

template <typename T>
class OmpTiled final : public CpuGemm<T> {
 public:
  OmpTiled(const Point& point, std::shared_ptr<const Problem> problem)
      : CpuGemm<T>(point, std::move(problem)),
        isa_(tiled_isa()),
        threads_(std::max(1, point.threads.value_or(1))) {
    const PackSizes sizes = pack_sizes<T>(isa_);
    b_pack_ = HostArray<T>(sizes.b_pack);
    for (int t = 0; t < threads_; ++t) a_pack_.emplace_back(sizes.a_pack);
    for (auto& buffer : a_pack_) a_pointers_.push_back(buffer.data());
  }

  void run() override {
    const GemmHostData<T>& p = this->p_;
    TiledJob<T> job{p.a.data(), p.b.data(),     this->out_.data(),  p.m,     p.n,
                    p.k,        b_pack_.data(), a_pointers_.data(), threads_};
    tiled_gemm(isa_, job);
  }

 private:
  Isa isa_;
  int threads_;
  HostArray<T> b_pack_;
  std::vector<HostArray<T>> a_pack_;  // one per thread
  std::vector<T*> a_pointers_;
};

}  // namespace

RUNNER_FACTORY(omp_tiled, by_dtype<OmpTiled>);

}  // namespace runner::kernels::gemm
