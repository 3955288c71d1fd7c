#include "harness/runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <type_traits>

#include "harness/context.hpp"
#include "harness/dispatch.hpp"
#include "harness/floor.hpp"
#include "harness/interleave.hpp"
#include "harness/verify_multi.hpp"
#include "harness/verify_then_time.hpp"
#include "peers/registry.hpp"

namespace pspmv_cli {

namespace {

using Variants = std::vector<std::pair<std::string, pspmv::AnalyzeOptions>>;

/// The pspmv variants: auto (unless --no-auto), then format x mapping x schedule; with long
/// or column modes given, every SELL variant (and auto) once per mode; with row weights, every
/// CSR nnz_balanced variant once per weight.
Variants pspmv_variants(const BenchOptions& o) {
  Variants variants;
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
  if (!o.thread_counts.empty()) {
    Variants threaded;
    for (const auto& [label, opt] : variants)
      for (const int t : o.thread_counts) {
        pspmv::AnalyzeOptions with = opt;
        with.threads = t;
        threaded.emplace_back(label + " t=" + std::to_string(t), with);
      }
    variants = std::move(threaded);
  }
  // Each SELL variant (and auto) once per mode of `modes`, labelled " NAME=MODE".
  const auto expand = [](const Variants& in, const std::vector<std::string>& modes, const char* name,
                         const auto& apply) {
    if (modes.empty()) return in;
    Variants expanded;
    for (const auto& [label, opt] : in) {
      if (opt.format && *opt.format == pspmv::Format::csr) {
        expanded.emplace_back(label, opt);
        continue;
      }
      for (const auto& mode : modes) {
        pspmv::AnalyzeOptions m = opt;
        apply(m, mode);
        expanded.emplace_back(label + " " + name + "=" + mode, m);
      }
    }
    return expanded;
  };
  variants = expand(variants, o.long_modes, "long",
                    [](pspmv::AnalyzeOptions& m, const std::string& mode) { m.sell_long_split = mode == "split"; });
  variants = expand(variants, o.compress_modes, "compress",
                    [](pspmv::AnalyzeOptions& m, const std::string& mode) { m.compress = mode == "on"; });
  // Each CSR thread_per_row nnz_balanced variant once per cost of its blocks, labelled
  // " blocks=groups|entries".
  if (!o.block_costs.empty()) {
    Variants costed;
    for (const auto& [label, opt] : variants) {
      if (!(opt.format && *opt.format == pspmv::Format::csr && opt.schedule &&
            *opt.schedule == pspmv::Schedule::nnz_balanced && opt.mapping &&
            *opt.mapping == pspmv::Mapping::thread_per_row)) {
        costed.emplace_back(label, opt);
        continue;
      }
      for (const std::string& cost : o.block_costs) {
        pspmv::AnalyzeOptions m = opt;
        m.block_groups = cost == "groups";
        costed.emplace_back(label + " blocks=" + cost, m);
      }
    }
    variants = std::move(costed);
  }
  // Each CSR nnz_balanced variant once per row weight of its blocks, labelled " row_weight=W".
  if (o.row_weights.empty()) return variants;
  Variants weighed;
  for (const auto& [label, opt] : variants) {
    if (!(opt.format && *opt.format == pspmv::Format::csr && opt.schedule &&
          *opt.schedule == pspmv::Schedule::nnz_balanced) ||
        opt.block_groups.value_or(false)) {  // blocks of groups weigh no entries
      weighed.emplace_back(label, opt);
      continue;
    }
    for (const std::int64_t w : o.row_weights) {
      pspmv::AnalyzeOptions m = opt;
      m.block_row_weight = w;
      weighed.emplace_back(label + " row_weight=" + std::to_string(w), m);
    }
  }
  return weighed;
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

/// y = A x with the plan's kernels at gather unroll factor u (1, 2, 4, 8 or 16).
template <class PlanT, class X, class Y>
void multiply_unrolled(PlanT& plan, int u, const X& x, const Y& y) {
#if defined(PSPMV_UNROLL_SWEEP)
  using Value = typename Y::value_type;
  switch (u) {
    case 1: plan.template multiply_unrolled<1>(Value(1), x, Value(0), y); break;
    case 2: plan.template multiply_unrolled<2>(Value(1), x, Value(0), y); break;
    case 4: plan.template multiply_unrolled<4>(Value(1), x, Value(0), y); break;
    case 8: plan.template multiply_unrolled<8>(Value(1), x, Value(0), y); break;
    default: plan.template multiply_unrolled<16>(Value(1), x, Value(0), y); break;
  }
#else
  (void)plan, (void)x, (void)y;
  throw pspmv::Unsupported("bench --unroll-sweep " + std::to_string(u) +
                           ": this CUDA build was configured without -DPSPMV_UNROLL_SWEEP=ON");
#endif
}

/// The fields every record of A shares: the matrix, its statistics, the bytes and the floor.
/// Vector: the type of x and y (A's value type, or double under a float A: "f32-f64").
template <class Exec, class Vector, class Value, class Offset>
Record matrix_record(const Input& in, const pspmv::HostCsr<Value, Offset>& A, const BenchOptions& o) {
  const auto stats = pspmv::compute_row_stats(A.row_ptr.data(), A.nrows, A.ncols);
  Record r;
  r.matrix = in.name;
  r.space = Exec().name();
  r.precision = !std::is_same<Vector, Value>::value ? "f32-f64" : sizeof(Value) == 4 ? "f32" : "f64";
  r.rows = A.nrows;
  r.cols = A.ncols;
  r.nnz = A.nnz();
  r.max_len = stats.max_len;
  r.mean_len = stats.mean;
  r.cv = stats.cv;
  r.offset_bits = 8 * sizeof(Offset);
  r.warmups = o.warmups;
  r.reps = o.reps;
  r.min_sample_s = o.min_sample_s;
  r.bytes = min_bytes<Vector>(A);
  return r;
}

/// compare: each peer's best timed again beside pspmv's best variant among out[first..] and its
/// automatic plan, in interleaved rounds (time_rounds); the medians go into the peer's record
/// (set_pair: the peer and pspmv's best; set_pair_auto: the automatic plan). The automatic plan
/// is timed once where it is the best variant.
template <class Exec, class Value, class Offset, class PlanT>
void retime_best_pairs(const pspmv::HostCsr<Value, Offset>& A, const VerifyThenTime<Exec, Value, Offset>& vt,
                       const BenchOptions& o, const std::vector<pspmv_peers::Peer>& peers, std::vector<Record>& out,
                       std::size_t first, const std::map<std::string, PlanT>& plans) {
  const auto usable = [](const Record& r) { return !r.skipped && r.verified && r.median_s > 0; };
  // pspmv's variants proper (not an unrolled or device-input record of one).
  const auto variants = pspmv_variants(o);
  const auto variant_of = [&](const Record& r) {
    return std::find_if(variants.begin(), variants.end(), [&](const auto& p) { return p.first == r.variant; });
  };
  const Record* best = nullptr;
  const Record* automatic = nullptr;  // as summarize() takes it: the first usable "auto" variant
  for (std::size_t i = first; i < out.size(); ++i) {
    const Record& r = out[i];
    if (r.impl != "pspmv" || !usable(r) || variant_of(r) == variants.end()) continue;
    if (!best || r.median_s < best->median_s) best = &r;
    if (!automatic && r.variant.rfind("auto", 0) == 0) automatic = &r;
  }
  if (!best) {
    if (first < out.size())
      std::cerr << fmt::format("  {:<22} {} no verified pspmv plan to time beside the peers\n", out[first].matrix,
                               out[first].precision);
    return;
  }
  const auto plan_of = [&](const Record& r) {
    // The variant's plan as bench_typed analyzed it (analyzed again only if it was not kept).
    const auto kept = plans.find(r.variant);
    return kept != plans.end() ? kept->second : pspmv::analyze<Exec>(A, variant_of(r)->second);
  };
  const std::string best_label = "pspmv " + best->variant;
  const PlanT plan = plan_of(*best);
  std::vector<std::function<void()>> ours{[&] { plan.multiply(Value(1), vt.x, Value(0), vt.y); }};
  const bool auto_apart = automatic && automatic != best;
  const PlanT auto_plan = auto_apart ? plan_of(*automatic) : plan;
  if (auto_apart) ours.push_back([&] { auto_plan.multiply(Value(1), vt.x, Value(0), vt.y); });
  std::map<std::string, std::size_t> peer_best;  // impl -> index of its fastest record
  for (std::size_t i = first; i < out.size(); ++i) {
    const Record& r = out[i];
    if (r.impl == "pspmv" || !usable(r)) continue;
    const auto it = peer_best.find(r.impl);
    if (it == peer_best.end() || r.median_s < out[it->second].median_s) peer_best[r.impl] = i;
  }
  int paired = 0;
  for (const auto& [impl, i] : peer_best) {
    Record& r = out[i];
    const auto p = std::find_if(peers.begin(), peers.end(),
                                [&](const auto& q) { return q.impl == r.impl && q.variant == r.variant && q.run; });
    if (p == peers.end()) continue;
    ++paired;
    std::vector<std::function<void()>> runs{p->run};
    runs.insert(runs.end(), ours.begin(), ours.end());
    const auto t = time_rounds<Exec>(runs, o.warmups, o.reps, o.min_sample_s);
    set_pair(r, best_label, t[0], t[1]);
    if (auto_apart) {
      set_pair_auto(r, t[2]);
    } else if (automatic) {  // the best variant: set_pair has judged this timing already
      r.paired_auto_s = t[1].median_s;
      r.paired_auto_min_s = t[1].min_s;
      r.paired_auto_calls = t[1].calls;
    }
    std::cerr << fmt::format("  {:<22} {} {:<14} interleaved with {}: {:.4f} ms vs {:.4f} ms ({:.2f}x){}\n", r.matrix,
                             r.precision, r.impl, best_label, t[0].median_s * 1e3, t[1].median_s * 1e3,
                             t[1].median_s > 0 ? t[0].median_s / t[1].median_s : 0.0,
                             auto_apart ? fmt::format("; pspmv auto {:.4f} ms ({:.2f}x)", t[2].median_s * 1e3,
                                                      t[2].median_s > 0 ? t[0].median_s / t[2].median_s : 0.0)
                                        : std::string());
  }
  if (paired == 0)
    std::cerr << fmt::format("  {:<22} {} no verified peer to time beside {}\n", best->matrix, best->precision,
                             best_label);
}

template <class Exec, class Value, class Offset, class MValue = Value>
using PlanOf = pspmv::Plan<Exec, Value, Offset, MValue>;

/// analyze() of A on Exec's default instance: a plan of A's value type, or under double vectors
/// a float A's mixed-precision plan (analyze_mixed).
template <class Exec, class Value, class MValue, class Offset>
PlanOf<Exec, Value, Offset, MValue> analyze_as(const pspmv::HostCsr<MValue, Offset>& A,
                                               const pspmv::AnalyzeOptions& opt) {
  if constexpr (std::is_same<Value, MValue>::value) return pspmv::analyze<Exec>(A, opt);
  else return pspmv::analyze_mixed(Exec(), A, opt);
}

/// A plan's analysis as a standalone analyze() would have spent it: a plan built with
/// `like`'s validation, statistics and (shared) storage is charged like's phases for those,
/// and its own for the choice and the partition.
struct AnalysisCost {
  double seconds = 0;
  std::vector<std::pair<std::string, double>> phases;
};

template <class PlanT>
AnalysisCost analysis_cost(const PlanT& plan, const PlanT* like) {
  pspmv::AnalysisPhases p = plan.analysis();
  AnalysisCost c;
  c.seconds = p.total;
  if (like && p.reused) {
    const pspmv::AnalysisPhases& l = like->analysis();
    const bool own_statistics = p.statistics > 0;  // computed again for a column statistic like lacked
    const double own = p.choice + p.partition + p.conversion + p.copy + (own_statistics ? p.statistics : 0.0);
    p.validation = l.validation;
    if (!own_statistics) p.statistics = l.statistics;
    p.fingerprint = l.fingerprint;
    if (p.shares_storage) {
      p.conversion = l.conversion;
      p.copy = l.copy;
    }
    // like's total minus the phases this plan spent itself, plus those.
    p.total = l.total - (l.choice + l.partition + (own_statistics ? l.statistics : 0.0) +
                         (p.shares_storage ? 0.0 : l.conversion + l.copy)) +
              own;
    c.seconds = p.total;
  }
  for (const auto& [name, s] : p.named()) c.phases.emplace_back(name, s);
  return c;
}

/// Every variant (and the peers) of one input, one precision: Value is the vectors' type, MValue
/// the matrix's (float under double vectors: the mixed-precision plans, which no peer offers).
template <class Exec, class Value, class Offset, class MValue = Value>
void bench_typed(const Input& in, const BenchOptions& o, std::vector<Record>& out) {
  constexpr bool mixed = !std::is_same<Value, MValue>::value;
  const auto A = convert_input<MValue, Offset>(in);
  // --transpose: plans analyze A with Operation::transpose; the product, its reference, the
  // records' matrix and the peers are those of A^T (the peers get it stored explicitly).
  const bool transposed = o.base.operation == pspmv::Operation::transpose;
  const pspmv::HostCsr<MValue, Offset> At = transposed ? pspmv::transpose(A) : pspmv::HostCsr<MValue, Offset>{};
  const pspmv::HostCsr<MValue, Offset>& M = transposed ? At : A;
  Input named;
  named.name = in.name + (transposed ? "^T" : "");
  named.source = in.source;
  const VerifyThenTime<Exec, Value, Offset, MValue> vt(M, o.warmups, o.reps, o.min_sample_s);
  Record base = matrix_record<Exec, Value>(named, M, o);
  const Floor floor = bandwidth_floor<Exec>(base.bytes, std::max(5, o.reps / 2), o.min_sample_s);
  base.floor_s = floor.seconds;
  base.floor_method = floor.method;
  const std::size_t first = out.size();
  const bool one = std::find(o.vectors.begin(), o.vectors.end(), 1) != o.vectors.end();
  // k > 1 vectors: X and Y of k columns, their own bytes (the matrix once, X and Y once each)
  // and floor.
  std::vector<std::unique_ptr<VerifyThenTimeMulti<Exec, Value, Offset, MValue>>> multi;
  std::vector<Record> multi_base;
  for (const int k : o.vectors) {
    if (k <= 1) continue;
    multi.push_back(std::make_unique<VerifyThenTimeMulti<Exec, Value, Offset, MValue>>(M, k, o.warmups, o.reps, o.min_sample_s));
    Record b = base;
    b.vectors = k;
    b.bytes = min_bytes<Value>(M) + static_cast<double>(k - 1) * sizeof(Value) * (static_cast<double>(M.nrows) + M.ncols);
    const Floor f = bandwidth_floor<Exec>(b.bytes, std::max(5, o.reps / 2), o.min_sample_s);
    b.floor_s = f.seconds;
    b.floor_method = f.method;
    multi_base.push_back(std::move(b));
  }
  auto add = [&](Record r) {
    mark_noise(r, load_average(), load_limit(true));
    if (r.skipped)
      std::cerr << fmt::format("  {:<22} {} {:<14} {:<32} skipped: {}\n", r.matrix, r.precision, r.impl, r.variant, r.plan);
    else
      std::cerr << fmt::format("  {:<22} {} {:<14} {:<32} {:>10.4f} ms {}\n", r.matrix, r.precision, r.impl, r.variant,
                               r.median_s * 1e3, r.verified ? "ok" : "WRONG");
    std::cerr << noise_warning(r);
    out.push_back(std::move(r));
  };

  // One full analysis per stored representation: variants that differ only in mapping,
  // schedule or launch sizes reuse the first plan of their format and long-row mode
  // (pspmv::analyze(space, A, options, like)), and record its analysis as their own.
  std::map<std::string, PlanOf<Exec, Value, Offset, MValue>> first_of;
  std::vector<std::pair<std::string, pspmv::AnalyzeOptions>> first_labels;  // each group's first variant
  std::map<std::string, PlanOf<Exec, Value, Offset, MValue>> plans;  // by label, for the interleaved retiming
  for (const auto& [label, opt] : pspmv_variants(o)) {
    // serial runs thread_per_row on a host only: the other combinations are not variants.
    if (opt.schedule && opt.mapping &&
        !pspmv::schedule_runs(*opt.schedule, *opt.mapping, pspmv::ExecTraits<Exec>::is_gpu))
      continue;
    // --blocks groups: rows in masked groups, which only a host build with them has.
    if (opt.block_groups.value_or(false) && !pspmv::ExecTraits<Exec>::masked_rows)
      throw pspmv::InvalidArgument("bench --blocks groups: the " + std::string(Exec().name()) +
                                   " execution space of this build sums no rows in masked groups (a host build "
                                   "with AVX-512 gathers has them; use --space host there, or --blocks entries)");
    // --threads: a count applies to a host's parallel thread_per_row launches only.
    if (opt.threads > 0) {
      if (pspmv::ExecTraits<Exec>::is_gpu)
        throw pspmv::InvalidArgument("bench --threads: the " + std::string(Exec().name()) +
                                     " execution space takes no thread count (use --space host)");
      if (opt.threads > Exec().concurrency())
        throw pspmv::InvalidArgument("bench --threads " + std::to_string(opt.threads) + " exceeds the " +
                                     std::to_string(Exec().concurrency()) + " threads of the host space");
      if ((opt.schedule && *opt.schedule == pspmv::Schedule::serial) ||
          (opt.mapping && *opt.mapping == pspmv::Mapping::team_per_row))
        continue;
    }
    const std::string group =
        opt.format ? pspmv::to_string(*opt.format) +
                         (opt.sell_long_split ? (*opt.sell_long_split ? "/split" : "/warp") : "") +
                         (opt.compress ? (*opt.compress ? "/compressed" : "/uncompressed") : "")
                   : std::string();
    const auto like = group.empty() ? first_of.end() : first_of.find(group);
    auto plan = like == first_of.end() ? analyze_as<Exec, Value>(A, opt) : pspmv::analyze(Exec(), A, opt, like->second);
    if (!group.empty() && like == first_of.end()) {
      first_of.emplace(group, plan);
      first_labels.emplace_back(label, opt);
    }
    const AnalysisCost cost = analysis_cost(plan, like == first_of.end() ? nullptr : &like->second);
    for (std::size_t m = 0; m < multi.size(); ++m) {
      const auto& mv = *multi[m];
      const auto t = mv.measure([&] { plan.multiply(Value(1), mv.X, Value(0), mv.Y); });
      Record r = complete(multi_base[m], "pspmv", label + " k=" + std::to_string(mv.vectors()), plan.describe(),
                          label.rfind("auto", 0) == 0 ? plan.reason() : "", cost.seconds, t, "");
      r.analysis_phases = cost.phases;
      add(std::move(r));
    }
    if (!one) continue;
    const auto t = vt.measure([&] { plan.multiply(Value(1), vt.x, Value(0), vt.y); });
    Record r = complete(base, "pspmv", label, plan.describe(), label.rfind("auto", 0) == 0 ? plan.reason() : "",
                        cost.seconds, t, label == unplanned_pspmv_variant ? "" : unplanned_pspmv_variant);
    r.analysis_phases = cost.phases;
    const double vectors = static_cast<double>(A.nrows + A.ncols) * sizeof(Value);
    set_plan_bytes(r, static_cast<double>(plan.matrix_bytes()), static_cast<double>(plan.csr_bytes()), vectors);
    add(std::move(r));
    if (o.interleave_best) plans.emplace(label, plan);
    for (const int u : o.unroll_sweep) {
      const auto tu = vt.measure([&] { multiply_unrolled(plan, u, vt.x, vt.y); });
      // A factor above 1 sums in partial sums (lanes_dot), not in the plan's masked rows.
      pspmv::PlanChoice ran = plan.choice();
      ran.launch.masked_rows = ran.launch.masked_rows && u <= 1;
      add(complete(base, "pspmv", label + " U=" + std::to_string(u), pspmv::describe(ran, plan.padding_ratio()), "",
                   cost.seconds, tu, ""));
    }
  }
  // The automatic plan, and the first plan of each stored representation, of the matrix
  // already in the device's memory (an application's device CSR), analyzed without the upload
  // (the same plans: tests/test_plan_input.cpp); each is verified and timed like any other.
  constexpr bool device = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
  const auto dA = device || (o.peers && !mixed) ? pspmv::detail::upload(Exec(), M)  // staged through pinned buffers
                                    : pspmv::CsrMatrix<MValue, Offset, std::int32_t, typename Exec::memory_space>{};
  if (device && o.include_auto) first_labels.emplace(first_labels.begin(), "auto", o.base);
  for (const auto& [label, opt] : device ? first_labels : decltype(first_labels){}) {
    const auto a = std::find_if(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                                [&label = label](const Record& r) { return r.impl == "pspmv" && r.variant == label; });
    if (a == out.end()) continue;
    pspmv::AnalyzeOptions resident = opt;
    resident.operation = pspmv::Operation::plain;  // dA already holds op(A)
    const auto plan = [&] {
      if constexpr (mixed) return pspmv::analyze_mixed(Exec(), dA, resident);
      else return pspmv::analyze(Exec(), dA, resident);
    }();
    const auto t = vt.measure([&] { plan.multiply(Value(1), vt.x, Value(0), vt.y); });
    const std::string host_plan = a->plan;
    const double host_analyze_s = a->analyze_s;
    // Not "auto...": reports key the automatic plan by that prefix.
    Record r = complete(base, "pspmv", "device-input " + label,
                        plan.describe() + (plan.describe() == host_plan ? "" : " (differs from the plan built from the host)"),
                        "", plan.analyze_seconds(), t,
                        // break-even against plain CSR analyzed from device memory too
                        label == unplanned_pspmv_variant ? std::string() : std::string("device-input ") + unplanned_pspmv_variant);
    for (const auto& [name, sec] : plan.analysis().named()) r.analysis_phases.emplace_back(name, sec);
    const double vectors = static_cast<double>(A.nrows + A.ncols) * sizeof(Value);
    set_plan_bytes(r, static_cast<double>(plan.matrix_bytes()), static_cast<double>(plan.csr_bytes()), vectors);
    std::cerr << fmt::format("  {:<22} {} {:<14} {:<32} analysis {:.3f} ms from device memory ({:.3f} ms from the host)\n",
                             r.matrix, r.precision, r.impl, r.variant, r.analyze_s * 1e3, host_analyze_s * 1e3);
    add(std::move(r));
  }
  if (!o.peers) return;
  if constexpr (mixed) {
    // No peer multiplies a float matrix into double vectors; compare with an f64 run.
    std::cerr << fmt::format("  {:<22} f32-f64: no peer offers a float matrix under double vectors\n", named.name);
    return;
  } else {
    const pspmv_peers::Problem<Exec, Value, Offset> problem{M, dA, vt.x, vt.y, o.expected_calls};
    for (std::size_t m = 0; m < multi.size(); ++m) {
      const auto& mv = *multi[m];
      const pspmv_peers::MultiProblem<Exec, Value, Offset> mp{M, dA, mv.X, mv.Y, mv.vectors(), o.expected_calls};
      for (const auto& p : pspmv_peers::make_multi_peers(mp)) {
        const std::string variant = p.variant + " k=" + std::to_string(mv.vectors());
        if (p.run) add(complete(multi_base[m], p.impl, variant, p.note, "", p.setup_seconds, mv.measure(p.run), ""));
        else if (p.note.rfind("absent:", 0) != 0) add(skipped(multi_base[m], p.impl, variant, p.note));
      }
    }
    if (!one) return;
    const auto peers = pspmv_peers::make_peers(problem);
    for (const auto& p : peers) {
      if (p.run) add(complete(base, p.impl, p.variant, p.note, "", p.setup_seconds, vt.measure(p.run), p.unplanned));
      else if (p.note.rfind("absent:", 0) != 0) add(skipped(base, p.impl, p.variant, p.note));
    }
    if (o.interleave_best) retime_best_pairs<Exec>(A, vt, o, peers, out, first, plans);
  }
}

}  // namespace

std::vector<Record> run_bench(const std::vector<Input>& inputs, const BenchOptions& o, const char* progress,
                              const std::function<void(const std::vector<Record>&)>& after_input) {
  std::vector<Record> out;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto& in = inputs[i];
    if (progress)
      std::cerr << fmt::format("{}: [{}/{}] {} ({} x {}, nnz {})\n", progress, i + 1, inputs.size(), in.name, in.A.nrows,
                               in.A.ncols, in.A.nnz());
    // 64-bit row_ptr offsets only where nnz needs them (pspmv::offset_bits_for).
    const bool wide = pspmv::offset_bits_for(static_cast<std::int64_t>(in.A.nnz())) == 64;
    with_space(o.space, [&](auto space) {
      using Exec = typename decltype(space)::type;
      for (const auto& p : o.precisions)
        with_precision(
            p,
            [&](auto value) {
              using Value = typename decltype(value)::type;
              using MValue = typename decltype(value)::matrix;
              if (wide) bench_typed<Exec, Value, std::int64_t, MValue>(in, o, out);
              else bench_typed<Exec, Value, std::int32_t, MValue>(in, o, out);
            });
    });
    if (after_input) after_input(out);
  }
  return out;
}

}  // namespace pspmv_cli
