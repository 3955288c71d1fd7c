#include "bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <random>
#include <unistd.h>

#include "peers/cusparse.hpp"
#include "peers/host_libraries.hpp"
#include "peers/kokkos_kernels.hpp"
#include "peers/openmp_plain.hpp"

namespace pspmv_cli {

namespace {

struct Timing {
  double median_s = 0, min_s = 0, max_rel_err = 0;
  bool verified = false;
};

/// Minimum bytes one y = A x moves: row_ptr, col_idx and values once, x once, y written once.
template <class Value, class Offset>
double min_bytes(const pspmv::HostCsr<Value, Offset>& A) {
  return static_cast<double>(A.nrows + 1) * sizeof(Offset) +
         static_cast<double>(A.nnz()) * (sizeof(std::int32_t) + sizeof(Value)) +
         static_cast<double>(A.ncols) * sizeof(Value) + static_cast<double>(A.nrows) * sizeof(Value);
}

/// Floor in seconds for `bytes` on Exec: a streaming parallel read on the host (Kokkos'
/// deep_copy is no floor there: SpMV beat it on the H200 host), a device-to-device copy
/// of bytes/2 each way on a GPU (counting read + write). Minimum over repetitions.
template <class Exec>
double floor_seconds(double bytes, int reps, std::string& method) {
  if constexpr (pspmv::ExecTraits<Exec>::is_gpu) {
    method = "device copy (read+write counted)";
    const std::size_t n = std::max<std::size_t>(1, static_cast<std::size_t>(bytes / 2) / sizeof(double));
    Kokkos::View<double*, typename Exec::memory_space> a("pspmv::floor_a", n), b("pspmv::floor_b", n);
    Kokkos::deep_copy(a, 1.0);
    double best = 1e300;
    for (int r = 0; r <= reps; ++r) {
      Exec().fence();
      const auto t0 = std::chrono::steady_clock::now();
      Kokkos::deep_copy(Exec(), b, a);
      Exec().fence();
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (r > 0) best = std::min(best, t);
    }
    return best;
  } else {
    method = "host streaming read (OpenMP static or dynamic, the faster; " + std::to_string(pspmv_peers::openmp_threads()) + " threads)";
    return pspmv_peers::openmp_stream_read_seconds(static_cast<std::size_t>(bytes), reps);
  }
}

template <class Value, class Offset>
pspmv::HostCsr<Value, Offset> convert_input(const Input& in) {
  try {
    return pspmv::convert<Value, Offset>(in.A);
  } catch (const pspmv::InvalidArgument& e) {
    throw pspmv::InvalidArgument(in.name + " (" + in.source + "): " + e.what() +
                                 (sizeof(Value) == 4 ? "; measure it with --precision f64" : ""));
  }
}

template <class Exec, class Value, class Offset>
void bench_typed(const Input& in, const BenchOptions& o, std::vector<Record>& out) {
  using Mem = typename Exec::memory_space;
  const auto A = convert_input<Value, Offset>(in);
  const auto stats = pspmv::compute_row_stats(A.row_ptr.data(), A.nrows, A.ncols);
  const std::string precision = sizeof(Value) == 4 ? "f32" : "f64";

  // x: random in [-1, 1), rounded to Value so the reference sees the same inputs.
  std::mt19937_64 rng(2024);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  Kokkos::View<Value*, Mem> x("pspmv::x", A.ncols), y("pspmv::y", A.nrows);
  auto hx = Kokkos::create_mirror_view(x);
  auto hy = Kokkos::create_mirror_view(y);
  for (std::int32_t j = 0; j < A.ncols; ++j) hx(j) = static_cast<Value>(dist(rng));
  Kokkos::deep_copy(x, hx);
  std::vector<double> ref(A.nrows), scale(A.nrows);
  Kokkos::parallel_for(
      "pspmv::bench_reference", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, A.nrows),
      [&](const std::int32_t i) {
        long double s = 0, a = 0;
        for (Offset k = A.row_ptr(i); k < A.row_ptr(i + 1); ++k) {
          const long double t = static_cast<long double>(A.values(k)) * hx(A.col_idx(k));
          s += t;
          a += std::fabs(t);
        }
        ref[i] = static_cast<double>(s);
        scale[i] = static_cast<double>(a);
      });
  Kokkos::fence();

  const double bytes = min_bytes(A);
  std::string floor_method;
  const double floor_s = floor_seconds<Exec>(bytes, std::max(5, o.reps / 2), floor_method);
  const double eps = std::numeric_limits<Value>::epsilon();

  auto measure = [&](const std::function<void()>& run) {
    Timing t;
    // Correct first: poison y, run once, check every row.
    Kokkos::deep_copy(y, std::numeric_limits<Value>::quiet_NaN());
    run();
    Exec().fence();
    Kokkos::deep_copy(hy, y);
    t.verified = true;
    for (std::int32_t i = 0; i < A.nrows; ++i) {
      const double got = static_cast<double>(hy(i)), err = std::fabs(got - ref[i]);
      const double len = static_cast<double>(A.row_ptr(i + 1) - A.row_ptr(i));
      if (!(err <= 4.0 * eps * (len + 2.0) * scale[i] + std::numeric_limits<Value>::min())) t.verified = false;
      const double rel = scale[i] > 0 ? err / scale[i] : err;
      t.max_rel_err = std::isnan(rel) ? std::numeric_limits<double>::infinity() : std::max(t.max_rel_err, rel);
    }
    for (int w = 0; w < o.warmups; ++w) run();
    Exec().fence();
    std::vector<double> times;
    for (int r = 0; r < o.reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      run();
      Exec().fence();
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    t.min_s = times.empty() ? 0 : times.front();
    t.median_s = times.empty() ? 0 : (times.size() % 2 ? times[times.size() / 2]
                                                        : 0.5 * (times[times.size() / 2 - 1] + times[times.size() / 2]));
    return t;
  };

  auto record = [&](const std::string& impl, const std::string& variant, const std::string& plan,
                    const std::string& reason, double analyze_s, const Timing& t, bool skipped = false,
                    const std::string& unplanned = "") {
    Record r;
    r.unplanned = unplanned;
    r.matrix = in.name;
    r.space = Exec().name();
    r.precision = precision;
    r.impl = impl;
    r.variant = variant;
    r.plan = plan;
    r.reason = reason;
    r.floor_method = floor_method;
    r.rows = A.nrows;
    r.cols = A.ncols;
    r.nnz = A.nnz();
    r.max_len = stats.max_len;
    r.mean_len = stats.mean;
    r.cv = stats.cv;
    r.offset_bits = 8 * sizeof(Offset);
    r.analyze_s = analyze_s;
    r.warmups = o.warmups;
    r.reps = o.reps;
    r.median_s = t.median_s;
    r.min_s = t.min_s;
    r.gflops = t.median_s > 0 ? 2.0 * static_cast<double>(A.nnz()) / t.median_s * 1e-9 : 0;
    r.bytes = bytes;
    r.gbs = t.median_s > 0 ? bytes / t.median_s * 1e-9 : 0;
    r.floor_s = floor_s;
    r.floor_gbs = floor_s > 0 ? bytes / floor_s * 1e-9 : 0;
    r.ratio_to_floor = floor_s > 0 ? t.median_s / floor_s : 0;
    r.max_rel_err = t.max_rel_err;
    r.verified = t.verified;
    r.skipped = skipped;
    out.push_back(r);
    if (skipped)
      std::cerr << fmt::format("  {:<22} {} {:<14} {:<32} skipped: {}\n", in.name, precision, impl, variant, plan);
    else
      std::cerr << fmt::format("  {:<22} {} {:<14} {:<32} {:>10.4f} ms {}\n", in.name, precision, impl, variant,
                               t.median_s * 1e3, t.verified ? "ok" : "WRONG");
  };

  std::vector<std::pair<std::string, pspmv::AnalyzeOptions>> variants;
  if (o.include_auto) variants.emplace_back("auto", o.base);
  for (auto f : o.formats)
    for (auto m : o.mappings)
      for (auto s : o.schedules) {
        pspmv::AnalyzeOptions opt = o.base;
        opt.format = f;
        opt.mapping = m;
        opt.schedule = s;
        variants.emplace_back(pspmv::to_string(f) + " " + pspmv::to_string(m) + "/" + pspmv::to_string(s), opt);
      }
  if (!o.long_modes.empty()) {
    // SELL variants (and auto) once per long-row mode.
    std::vector<std::pair<std::string, pspmv::AnalyzeOptions>> expanded;
    for (const auto& [label, opt] : variants) {
      if (opt.format && *opt.format == pspmv::Format::csr) {
        expanded.emplace_back(label, opt);
        continue;
      }
      for (const auto& mode : o.long_modes) {
        pspmv::AnalyzeOptions m = opt;
        m.sell_long_split = mode == "split";
        expanded.emplace_back(label + " long=" + mode, m);
      }
    }
    variants = expanded;
  }
  for (const auto& [label, opt] : variants) {
    const pspmv::Plan<Exec, Value, Offset> plan(A, opt);
    const auto t = measure([&] { plan.multiply(Value(1), x, Value(0), y); });
    record("pspmv", label, plan.describe(), label.rfind("auto", 0) == 0 ? plan.reason() : "", plan.analyze_seconds(), t,
           false, label == unplanned_pspmv_variant ? "" : unplanned_pspmv_variant);
    for (const int u : o.unroll_sweep) {
#if defined(PSPMV_UNROLL_SWEEP)
      const auto tu = measure([&] {
        switch (u) {
          case 1: plan.template multiply_unrolled<1>(Value(1), x, Value(0), y); break;
          case 2: plan.template multiply_unrolled<2>(Value(1), x, Value(0), y); break;
          case 4: plan.template multiply_unrolled<4>(Value(1), x, Value(0), y); break;
          case 8: plan.template multiply_unrolled<8>(Value(1), x, Value(0), y); break;
          default: plan.template multiply_unrolled<16>(Value(1), x, Value(0), y); break;
        }
      });
      record("pspmv", label + " U=" + std::to_string(u), plan.describe(), "", plan.analyze_seconds(), tu);
#else
      throw pspmv::Unsupported("bench --unroll-sweep " + std::to_string(u) +
                               ": this CUDA build was configured without -DPSPMV_UNROLL_SWEEP=ON");
#endif
    }
  }
  if (!o.peers) return;
  const auto dA = pspmv::copy_to<Mem>(A);  // the peers' own CSR copy in Exec's memory
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible) {
    if (pspmv_peers::openmp_available()) {
      const std::int64_t chunk = std::max<std::int64_t>(1, (A.nrows + 1999) / 2000);
      for (auto s : {pspmv_peers::OmpSchedule::static_blocks, pspmv_peers::OmpSchedule::static_chunks,
                     pspmv_peers::OmpSchedule::dynamic_chunks}) {
        const auto t = measure([&] {
          pspmv_peers::openmp_csr_spmv(A.nrows, A.row_ptr.data(), A.col_idx.data(), A.values.data(), hx.data(),
                                       y.data(), s, chunk);
        });
        record("openmp-plain", pspmv_peers::to_string(s),
               s == pspmv_peers::OmpSchedule::static_blocks ? "pragma omp for schedule(static)"
                                                            : "chunk_rows=" + std::to_string(chunk),
               "", 0.0, t);
      }
    }
  }
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible) {
    const pspmv_peers::HostCsrView<Value, Offset> hv{A.nrows, A.ncols, static_cast<std::int64_t>(A.nnz()),
                                                     A.row_ptr.data(), A.col_idx.data(), A.values.data()};
    for (auto& peer : pspmv_peers::host_peers(hv, hx.data(), y.data(), o.expected_calls)) {
      if (peer.run) record(peer.impl, peer.variant, peer.note, "", peer.setup_seconds, measure(peer.run), false, peer.unplanned);
      else if (peer.note.rfind("absent", 0) != 0) record(peer.impl, peer.variant, peer.note, "", 0.0, Timing{}, true);
    }
  }
  if (pspmv_peers::kokkos_kernels_available()) {
    double setup = 0;
    auto run = pspmv_peers::kokkos_kernels_spmv<Exec, Value, Offset>(dA, x, y, setup);
    if (run) record("kokkos-kernels", "KokkosSparse::spmv", "native kernels, TPLs off", "", setup, measure(run));
  }
#if defined(PSPMV_HAVE_CUSPARSE)
  if constexpr (std::is_same<Exec, Kokkos::Cuda>::value) {
    for (auto& pr : pspmv_peers::cusparse_spmv<Value, Offset>(A, dA, x, y)) {
      if (pr.run) {
        // ALG2's preprocess and the SELL conversion are cuSPARSE's analysis stages; its
        // unplanned call is CSR ALG1 on the CSR arrays as they are.
        record("cusparse", pr.variant, pr.note, "", pr.setup_s, measure(pr.run), false,
               pr.variant == "CSR_ALG1" ? "" : "CSR_ALG1");
      } else {
        record("cusparse", pr.variant, pr.note, "", 0.0, Timing{}, true);
      }
    }
  }
#endif
}

template <class Exec>
void bench_space(const Input& in, const BenchOptions& o, std::vector<Record>& out) {
  // 64-bit row_ptr offsets only where nnz needs them (pspmv::offset_bits_for).
  const bool wide = pspmv::offset_bits_for(static_cast<std::int64_t>(in.A.nnz())) == 64;
  for (const auto& p : o.precisions) {
    if (p == "f64") {
      if (wide) bench_typed<Exec, double, std::int64_t>(in, o, out);
      else bench_typed<Exec, double, std::int32_t>(in, o, out);
    } else if (p == "f32") {
      if (wide) bench_typed<Exec, float, std::int64_t>(in, o, out);
      else bench_typed<Exec, float, std::int32_t>(in, o, out);
    } else {
      throw pspmv::InvalidArgument("unknown precision '" + p + "' (expected f32 or f64)");
    }
  }
}

}  // namespace

std::vector<Record> run_bench(const Input& input, const BenchOptions& options) {
  std::vector<Record> out;
  if (options.space == "host") bench_space<Kokkos::DefaultHostExecutionSpace>(input, options, out);
  else if (options.space == "default") bench_space<Kokkos::DefaultExecutionSpace>(input, options, out);
  else throw pspmv::InvalidArgument("unknown --space '" + options.space + "' (expected default or host)");
  return out;
}

nlohmann::json to_json(const Record& r) {
  return {{"matrix", r.matrix},       {"space", r.space},         {"precision", r.precision},
          {"impl", r.impl},           {"variant", r.variant},     {"plan", r.plan},
          {"reason", r.reason},       {"rows", r.rows},           {"cols", r.cols},
          {"nnz", r.nnz},             {"mean_row", r.mean_len},   {"max_row", r.max_len},
          {"cv_row", r.cv},           {"offset_bits", r.offset_bits},
          {"analyze_s", r.analyze_s}, {"warmups", r.warmups},     {"reps", r.reps},
          {"median_s", r.median_s},   {"min_s", r.min_s},         {"gflops", r.gflops},
          {"min_bytes", r.bytes},     {"gbs", r.gbs},             {"floor_s", r.floor_s},
          {"floor_gbs", r.floor_gbs}, {"floor_method", r.floor_method},
          {"ratio_to_floor", r.ratio_to_floor}, {"max_rel_err", r.max_rel_err}, {"verified", r.verified},
          {"skipped", r.skipped},     {"unplanned", r.unplanned}};
}

std::string csv_header() {
  return "matrix,space,precision,impl,variant,rows,cols,nnz,offset_bits,analyze_s,warmups,reps,median_s,min_s,"
         "gflops,min_bytes,gbs,floor_s,floor_gbs,ratio_to_floor,max_rel_err,verified\n";
}

std::string to_csv(const Record& r) {
  return fmt::format("{},{},{},{},{},{},{},{},{},{:.6e},{},{},{:.6e},{:.6e},{:.4f},{:.0f},{:.4f},{:.6e},{:.4f},{:.4f},{:.3e},{}\n",
                     r.matrix, r.space, r.precision, r.impl, r.variant, r.rows, r.cols, r.nnz, r.offset_bits,
                     r.analyze_s, r.warmups, r.reps, r.median_s, r.min_s, r.gflops, r.bytes, r.gbs, r.floor_s,
                     r.floor_gbs, r.ratio_to_floor, r.max_rel_err, r.verified ? "true" : "false");
}

std::string table(const std::vector<Record>& records) {
  std::string s = fmt::format("{:<22} {:<4} {:<15} {:<52} {:>10} {:>10} {:>8} {:>8} {:>7} {:>10} {:>9} {}\n",
                              "matrix", "prec", "impl", "variant", "median ms", "min ms", "GFLOP/s", "GB/s",
                              "x floor", "analyze ms", "max err", "check");
  std::string last;
  for (const auto& r : records) {
    if (r.matrix + r.precision != last && !last.empty()) s += "\n";
    last = r.matrix + r.precision;
    if (r.skipped) {
      s += fmt::format("{:<22} {:<4} {:<15} {:<52} skipped: {}\n", r.matrix.substr(0, 22), r.precision, r.impl,
                       r.variant.substr(0, 52), r.plan);
      continue;
    }
    s += fmt::format("{:<22} {:<4} {:<15} {:<52} {:>10.4f} {:>10.4f} {:>8.2f} {:>8.2f} {:>7.2f} {:>10.3f} {:>9.1e} {}\n",
                     r.matrix.substr(0, 22), r.precision, r.impl, r.variant.substr(0, 52), r.median_s * 1e3,
                     r.min_s * 1e3, r.gflops, r.gbs, r.ratio_to_floor, r.analyze_s * 1e3, r.max_rel_err,
                     r.verified ? "ok" : "WRONG");
  }
  for (const auto& r : records)
    if (r.variant.rfind("auto", 0) == 0 && !r.reason.empty())
      s += fmt::format("\n{} {}: analyze() chose [{}] because {}", r.matrix, r.precision, r.plan, r.reason);
  if (!records.empty())
    s += fmt::format("\nfloor: {} of the minimum bytes (row_ptr, col_idx, values, x once; y written once); "
                     "x floor = median / floor time\n", records.front().floor_method);
  return s;
}

std::string lesson_pair_summary(const std::vector<Input>& inputs, const std::vector<Record>& records) {
  std::string s;
  for (const auto& e : inputs) {
    if (e.name.rfind("even:", 0) != 0) continue;
    const std::string n = e.name.substr(5);
    const Input* k = nullptr;
    for (const auto& c : inputs)
      if (c.name == "skewed:" + n) k = &c;
    if (!k) continue;
    if (k->A.nnz() != e.A.nnz())
      throw pspmv::InvalidArgument("lesson pair " + e.name + " / " + k->name + ": nnz differ (" +
                                   std::to_string(e.A.nnz()) + " vs " + std::to_string(k->A.nnz()) +
                                   "); refusing to compare");
    const auto le = pspmv::compute_lane_slots(e.A.row_ptr.data(), e.A.nrows, 32);
    const auto lk = pspmv::compute_lane_slots(k->A.row_ptr.data(), k->A.nrows, 32);
    s += fmt::format("\nLesson pair at {} rows, nnz {} each: lane-slots at width 32 (useful share)\n", n, e.A.nnz());
    s += fmt::format("  {:<8} thread_per_row {:>12} ({:>5.1f}%)   team_per_row {:>12} ({:>5.1f}%)   thread/team slots {:.3f}\n",
                     "even", le.thread_per_row, 100 * le.useful_thread_per_row, le.team_per_row,
                     100 * le.useful_team_per_row, double(le.thread_per_row) / double(le.team_per_row));
    s += fmt::format("  {:<8} thread_per_row {:>12} ({:>5.1f}%)   team_per_row {:>12} ({:>5.1f}%)   thread/team slots {:.3f}\n",
                     "skewed", lk.thread_per_row, 100 * lk.useful_thread_per_row, lk.team_per_row,
                     100 * lk.useful_team_per_row, double(lk.thread_per_row) / double(lk.team_per_row));
    std::map<std::string, double> t;
    for (const auto& r : records)
      if (r.impl == "pspmv") t[r.matrix + "|" + r.precision + "|" + r.space + "|" + r.variant] = r.median_s;
    for (const std::string prec : {"f64", "f32"})
      for (const auto& r : records) {
        if (r.matrix != e.name || r.precision != prec || r.impl != "pspmv") continue;
        for (const std::string sched : {"static_chunks", "dynamic_chunks", "nnz_balanced", "work_stealing"}) {
          if (r.variant != "csr thread_per_row/" + sched) continue;
          auto get = [&](const std::string& m, const std::string& v) {
            auto it = t.find(m + "|" + prec + "|" + r.space + "|" + v);
            return it == t.end() ? 0.0 : it->second;
          };
          const double et = get(e.name, "csr thread_per_row/" + sched), ew = get(e.name, "csr team_per_row/" + sched);
          const double kt = get(k->name, "csr thread_per_row/" + sched), kw = get(k->name, "csr team_per_row/" + sched);
          if (et > 0 && ew > 0 && kt > 0 && kw > 0)
            s += fmt::format("  {} {} csr {:<15} measured thread/team time: even {:.3f}, skewed {:.3f};  skewed/even: thread {:.3f}, team {:.3f}\n",
                             r.space, prec, sched, et / ew, kt / kw, kt / et, kw / ew);
        }
      }
  }
  return s;
}

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw pspmv::Error(path + ": cannot write (opening " + tmp + " failed)");
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if ((std::fclose(f) != 0) || !ok) {
    std::remove(tmp.c_str());
    throw pspmv::Error(path + ": write failed; no file was left behind");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw pspmv::Error(path + ": cannot move the finished file into place");
  }
}

}  // namespace pspmv_cli
