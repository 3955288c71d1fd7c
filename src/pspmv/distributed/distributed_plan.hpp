#pragma once
/// @file distributed_plan.hpp
/// DistributedPlan: y = alpha A x + beta y for a matrix whose rows are spread over the ranks of
/// an MPI communicator, each rank owning a contiguous block of rows and the same block of x
/// (the row partition of PETSc's MATMPIAIJ and Tpetra's CrsMatrix). Each rank splits its rows
/// into the diagonal block (the columns it owns, renumbered locally) and the off-diagonal block
/// (the columns others own, compressed to the halo it receives), analyzes both with analyze()
/// (any format, mapping and schedule), and multiplies the diagonal block while the halo is in
/// flight. Library pspmv::mpi; include <pspmv/distributed.hpp>.

#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pspmv/analyze.hpp"
#include "pspmv/distributed/comm.hpp"
#include "pspmv/matrix/csr.hpp"

namespace pspmv {

/// One rank's rows of a distributed matrix, as the caller holds them.
/// Shapes: rows.nrows local rows (global rows first_row .. first_row + rows.nrows - 1);
/// rows.ncols == global_cols; rows.col_idx holds global column indices.
template <class Value, class Offset = std::int64_t>
struct DistributedRows {
  std::int64_t global_rows = 0;  ///< rows of the global matrix (the same on every rank)
  std::int64_t global_cols = 0;  ///< columns of the global matrix (the same on every rank)
  std::int64_t first_row = 0;    ///< global index of this rank's first row
  HostCsr<Value, Offset> rows;   ///< this rank's rows, global column indices
};

/// Rank `rank`'s rows of a matrix every rank holds whole (a generator run on each rank): rows
/// offsets[rank] .. offsets[rank + 1] - 1, columns global. Copies.
template <class Value, class Offset>
DistributedRows<Value, Offset> local_rows(const HostCsr<Value, Offset>& A, const std::vector<std::int64_t>& offsets,
                                          int rank) {
  check_partition(offsets, static_cast<int>(offsets.size()) - 1, A.nrows, "local_rows: row partition");
  if (rank < 0 || rank >= static_cast<int>(offsets.size()) - 1)
    throw InvalidArgument("local_rows: rank " + std::to_string(rank) + " is not in [0, " +
                          std::to_string(offsets.size() - 1) + ")");
  const std::int64_t b = offsets[rank], e = offsets[rank + 1];
  const Offset kb = A.row_ptr(b), ke = A.row_ptr(e);
  DistributedRows<Value, Offset> d;
  d.global_rows = A.nrows;
  d.global_cols = A.ncols;
  d.first_row = b;
  d.rows.nrows = static_cast<std::int32_t>(e - b);
  d.rows.ncols = A.ncols;
  d.rows.row_ptr = Kokkos::View<Offset*, Kokkos::HostSpace>("pspmv::row_ptr", static_cast<std::size_t>(e - b) + 1);
  d.rows.col_idx = Kokkos::View<std::int32_t*, Kokkos::HostSpace>("pspmv::col_idx", static_cast<std::size_t>(ke - kb));
  d.rows.values = Kokkos::View<Value*, Kokkos::HostSpace>("pspmv::values", static_cast<std::size_t>(ke - kb));
  for (std::int64_t i = b; i <= e; ++i) d.rows.row_ptr(i - b) = A.row_ptr(i) - kb;
  std::copy(A.col_idx.data() + kb, A.col_idx.data() + ke, d.rows.col_idx.data());
  std::copy(A.values.data() + kb, A.values.data() + ke, d.rows.values.data());
  return d;
}

/// Collective: `root` holds the whole matrix (`A`, ignored elsewhere) and sends each rank its
/// rows of the partition `offsets` (ranks + 1 entries; empty: partition_by_nnz, computed on
/// root). Every rank returns its DistributedRows.
/// @throws (on every rank) InvalidArgument for a bad partition.
template <class Value, class Offset>
DistributedRows<Value, Offset> scatter_rows(MPI_Comm comm, const HostCsr<Value, Offset>& A, int root,
                                            std::vector<std::int64_t> offsets = {}) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::int64_t shape[2] = {A.nrows, A.ncols};
  MPI_Bcast(shape, 2, MPI_INT64_T, root, comm);
  collectively(comm, [&] {
    if (rank != root) return;
    if (offsets.empty()) {
      std::vector<std::int64_t> rp(static_cast<std::size_t>(A.nrows) + 1);
      for (std::int64_t i = 0; i <= A.nrows; ++i) rp[i] = A.row_ptr(i);
      offsets = partition_by_nnz(rp.data(), A.nrows, size);
    }
    check_partition(offsets, size, A.nrows, "scatter_rows: row partition");
  });
  offsets.resize(static_cast<std::size_t>(size) + 1);
  MPI_Bcast(offsets.data(), size + 1, MPI_INT64_T, root, comm);
  DistributedRows<Value, Offset> d;
  d.global_rows = shape[0];
  d.global_cols = shape[1];
  d.first_row = offsets[rank];
  const std::int64_t n = offsets[rank + 1] - offsets[rank];
  d.rows.nrows = static_cast<std::int32_t>(n);
  d.rows.ncols = static_cast<std::int32_t>(shape[1]);
  d.rows.row_ptr = Kokkos::View<Offset*, Kokkos::HostSpace>("pspmv::row_ptr", static_cast<std::size_t>(n) + 1);
  // Row lengths, then entries, in pieces below 2^31 elements each (MPI counts are int).
  std::vector<std::int64_t> nnz_of(size, 0);
  if (rank == root)
    for (int p = 0; p < size; ++p) nnz_of[p] = A.row_ptr(offsets[p + 1]) - A.row_ptr(offsets[p]);
  MPI_Bcast(nnz_of.data(), size, MPI_INT64_T, root, comm);
  d.rows.col_idx = Kokkos::View<std::int32_t*, Kokkos::HostSpace>("pspmv::col_idx", nnz_of[rank]);
  d.rows.values = Kokkos::View<Value*, Kokkos::HostSpace>("pspmv::values", nnz_of[rank]);
  const MPI_Datatype value_type = sizeof(Value) == 8 ? MPI_DOUBLE : MPI_FLOAT;
  const MPI_Datatype offset_type = sizeof(Offset) == 8 ? MPI_INT64_T : MPI_INT32_T;
  constexpr std::int64_t piece = std::int64_t{1} << 30;
  auto move = [&](int p, const void* src, void* dst, std::int64_t count, std::size_t bytes, MPI_Datatype t, int tag) {
    for (std::int64_t at = 0; at < count; at += piece) {
      const int c = static_cast<int>(std::min(piece, count - at));
      if (rank == root && p == root)
        std::copy(static_cast<const char*>(src) + at * bytes, static_cast<const char*>(src) + (at + c) * bytes,
                  static_cast<char*>(dst) + at * bytes);
      else if (rank == root)
        MPI_Send(static_cast<const char*>(src) + at * bytes, c, t, p, tag, comm);
      else if (rank == p)
        MPI_Recv(static_cast<char*>(dst) + at * bytes, c, t, root, tag, comm, MPI_STATUS_IGNORE);
    }
  };
  for (int p = 0; p < size; ++p) {
    if (rank != root && rank != p) continue;
    const Offset kb = rank == root ? A.row_ptr(offsets[p]) : 0;
    const std::int64_t rows_p = offsets[p + 1] - offsets[p];
    move(p, rank == root ? A.row_ptr.data() + offsets[p] : nullptr, d.rows.row_ptr.data(), rows_p + 1, sizeof(Offset),
         offset_type, 1);
    move(p, rank == root ? A.col_idx.data() + kb : nullptr, d.rows.col_idx.data(), nnz_of[p], sizeof(std::int32_t),
         MPI_INT32_T, 2);
    move(p, rank == root ? A.values.data() + kb : nullptr, d.rows.values.data(), nnz_of[p], sizeof(Value), value_type,
         3);
  }
  const Offset base = n >= 0 && d.rows.row_ptr.extent(0) > 0 ? d.rows.row_ptr(0) : 0;
  for (std::int64_t i = 0; i <= n; ++i) d.rows.row_ptr(i) -= base;
  return d;
}

/// Options of a DistributedPlan.
struct DistributedOptions {
  AnalyzeOptions diagonal;      ///< analyze() options of the diagonal block (owned columns)
  AnalyzeOptions off_diagonal;  ///< analyze() options of the off-diagonal block (the halo's columns)
  /// Column partition (ranks + 1 offsets): which x entries each rank owns. Empty: the row
  /// partition for a square matrix, else partition_even() of the columns.
  std::vector<std::int64_t> col_offsets;
  /// Exchange the halo through host buffers (true) or hand device memory to MPI (false).
  /// Empty: directly where the plan's memory is host memory or the MPI library says it reads
  /// device memory (mpi_cuda_aware()), else through host buffers.
  std::optional<bool> stage_through_host;
  /// multiply() agrees on a vector-length error with one MPI_Allreduce, so that every rank
  /// throws it; false: the check is local (a rank with wrong vectors throws alone).
  bool check_collectively = true;
};

/// Seconds of each phase of one multiply(), as the calling rank saw them. With times requested,
/// multiply() fences the instance after each kernel phase, so each phase holds its kernels.
struct PhaseTimes {
  double pack = 0;          ///< receives posted, send entries gathered (and staged), sends started
  double diagonal = 0;      ///< the diagonal block, y = alpha A_d x + beta y
  double wait = 0;          ///< waiting for the halo (and copying it to the device when staged)
  double off_diagonal = 0;  ///< the off-diagonal block, y += alpha A_o halo, and the sends' completion
  double total = 0;
};

namespace detail {
template <class ExecSpace, class Value>
struct PackHalo {
  Kokkos::View<Value*, typename ExecSpace::memory_space> out;
  Kokkos::View<const Value*, typename ExecSpace::memory_space> x;
  Kokkos::View<const std::int32_t*, typename ExecSpace::memory_space> idx;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const { out(k) = x(idx(k)); }
};

/// y(rows(r)) += part(r): the off-diagonal block's compressed rows added into y (rows distinct).
template <class ExecSpace, class Value>
struct AddRows {
  Kokkos::View<Value*, typename ExecSpace::memory_space> y;
  Kokkos::View<const Value*, typename ExecSpace::memory_space> part;
  Kokkos::View<const std::int32_t*, typename ExecSpace::memory_space> rows;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t r) const { y(rows(r)) += part(r); }
};

/// Persistent requests and the communicator they live on, freed with the last copy of a plan.
struct PersistentComm {
  MPI_Comm comm = MPI_COMM_NULL;
  std::vector<MPI_Request> recvs, sends;
  PersistentComm() = default;
  PersistentComm(const PersistentComm&) = delete;
  PersistentComm& operator=(const PersistentComm&) = delete;
  ~PersistentComm() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;  // MPI is gone: nothing left to free
    for (auto& r : recvs)
      if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
    for (auto& r : sends)
      if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
};
}  // namespace detail

/// A distributed matrix analyzed for y = alpha A x + beta y on ExecSpace, one rank's share.
/// Built collectively; copies share the halo buffers and requests (calls on a plan and its
/// copies are ordered). Destroy it before MPI_Finalize.
/// @tparam ExecSpace Kokkos::OpenMP, Serial or Cuda; Value float or double; Offset int32_t or int64_t
template <class ExecSpace, class Value, class Offset = std::int64_t>
class DistributedPlan {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using plan_type = Plan<ExecSpace, Value, Offset>;
  using vector_type = Kokkos::View<Value*, memory_space>;
  using const_vector_type = Kokkos::View<const Value*, memory_space>;

  /// Collective over comm. Checks that the ranks' rows agree (same global sizes, row ranges
  /// contiguous in rank order and covering the matrix, each rank's CSR valid), splits this
  /// rank's rows into the diagonal and off-diagonal blocks, analyzes each on `space`, and builds
  /// the halo pattern with one collective exchange (send indices packed once, on the device).
  /// @throws on every rank the same pspmv::Error (collectively()) if any rank's input is bad.
  DistributedPlan(const ExecSpace& space, MPI_Comm comm, const DistributedRows<Value, Offset>& rows,
                  const DistributedOptions& options = {});

  /// y = alpha A x + beta y, collective: x holds this rank's owned x entries (local_cols()),
  /// y its rows (local_rows()), both in memory_space, BLAS semantics as Plan::multiply. Posts
  /// the receives, packs and sends the entries neighbours need, multiplies the diagonal block
  /// with beta, waits for the halo, adds the off-diagonal block (into y with beta = 1, or into
  /// its compressed rows' own vector, then added by row). Returns with y
  /// complete on the host side of MPI; fence `space` before reading y. With `times`, records
  /// the phases (PhaseTimes).
  /// @throws DimensionError naming the rank whose x or y has the wrong length (on every rank
  ///         when check_collectively); InvalidArgument if x and y overlap.
  void multiply(const ExecSpace& space, Value alpha, const const_vector_type& x, Value beta, const vector_type& y,
                PhaseTimes* times = nullptr) const;
  /// Only the halo exchange of a multiply (post, pack, send, wait), collective: the
  /// communication alone, to set against multiply()'s wait phase. Returns its seconds.
  double exchange(const ExecSpace& space, const const_vector_type& x) const;

  /// This rank and the number of ranks of the plan's communicator.
  int rank() const { return rank_; }
  int ranks() const { return size_; }
  /// The global matrix's shape.
  std::int64_t global_rows() const { return global_rows_; }
  std::int64_t global_cols() const { return global_cols_; }
  /// Row partition (ranks + 1 offsets) and column partition (which x entries each rank owns).
  const std::vector<std::int64_t>& row_offsets() const { return row_offsets_; }
  const std::vector<std::int64_t>& col_offsets() const { return col_offsets_; }
  /// This rank's rows (the length of its y) and owned columns (the length of its x).
  std::int32_t local_rows() const { return local_rows_; }
  std::int32_t local_cols() const { return local_cols_; }
  /// x entries received per multiply, and the global column of each (ascending).
  std::int64_t halo_size() const { return static_cast<std::int64_t>(halo_cols_.size()); }
  const std::vector<std::int64_t>& halo_columns() const { return halo_cols_; }
  /// x entries sent per multiply (to all neighbours together).
  std::int64_t send_size() const { return static_cast<std::int64_t>(halo_.send_local.size()); }
  const HaloPattern& pattern() const { return halo_; }
  std::int64_t halo_bytes_received() const { return halo_size() * static_cast<std::int64_t>(sizeof(Value)); }
  std::int64_t halo_bytes_sent() const { return send_size() * static_cast<std::int64_t>(sizeof(Value)); }
  /// Entries of this rank's diagonal and off-diagonal blocks.
  std::int64_t diagonal_nnz() const { return diag_nnz_; }
  std::int64_t off_diagonal_nnz() const { return offd_nnz_; }
  /// Rows of the off-diagonal block's plan: all local rows, or only those with off-diagonal
  /// entries when they are at most half (compressed: the plan writes them to a vector of their
  /// own, added into y by row afterwards; a band matrix needs the halo in few rows).
  std::int32_t off_diagonal_rows() const { return offd_rows_count_; }
  bool off_diagonal_compressed() const { return offd_rows_.extent(0) > 0; }
  /// The blocks' plans (empty when the block has no rows / no entries).
  const std::optional<plan_type>& diagonal() const { return diag_; }
  const std::optional<plan_type>& off_diagonal() const { return offd_; }
  /// Whether the halo goes through host buffers (a device memory space and an MPI library that
  /// does not read device memory, or DistributedOptions::stage_through_host).
  bool staged_through_host() const { return staged_; }

 private:
  void start_exchange(const ExecSpace& space, const const_vector_type& x) const;
  void finish_receives(const ExecSpace& space) const;
  void check_vectors(const const_vector_type& x, const vector_type& y) const;

  int rank_ = 0, size_ = 1;
  std::int64_t global_rows_ = 0, global_cols_ = 0;
  std::vector<std::int64_t> row_offsets_, col_offsets_, halo_cols_;
  std::int32_t local_rows_ = 0, local_cols_ = 0;
  std::int64_t diag_nnz_ = 0, offd_nnz_ = 0;
  std::int32_t offd_rows_count_ = 0;
  HaloPattern halo_;
  std::optional<plan_type> diag_, offd_;
  bool staged_ = false, check_collectively_ = true;
  vector_type halo_x_, send_buf_, offd_y_;
  Kokkos::View<std::int32_t*, memory_space> offd_rows_;  ///< compressed off-diagonal rows' local indices
  Kokkos::View<std::int32_t*, memory_space> send_idx_;
  Kokkos::View<Value*, Kokkos::HostSpace> halo_host_, send_host_;
  std::shared_ptr<detail::PersistentComm> pc_;
};

template <class ExecSpace, class Value, class Offset>
DistributedPlan<ExecSpace, Value, Offset>::DistributedPlan(const ExecSpace& space, MPI_Comm comm,
                                                           const DistributedRows<Value, Offset>& rows,
                                                           const DistributedOptions& options)
    : check_collectively_(options.check_collectively), pc_(std::make_shared<detail::PersistentComm>()) {
  MPI_Comm_dup(comm, &pc_->comm);  // the plan's own messages never meet the application's
  MPI_Comm c = pc_->comm;
  MPI_Comm_rank(c, &rank_);
  MPI_Comm_size(c, &size_);

  // 1. Do the ranks' rows fit together? Gathered, so every rank reaches the same verdict.
  std::int64_t mine[4] = {rows.global_rows, rows.global_cols, rows.first_row, rows.rows.nrows};
  std::vector<std::int64_t> all(4 * static_cast<std::size_t>(size_));
  MPI_Allgather(mine, 4, MPI_INT64_T, all.data(), 4, MPI_INT64_T, c);
  collectively(c, [&] {
    validate(rows.rows);
    if (rows.rows.ncols != rows.global_cols)
      throw DimensionError("DistributedPlan: columns of the local rows (= global columns)", rows.global_cols,
                           rows.rows.ncols);
  });
  collectively(c, [&] {
    if (rank_ != 0) return;  // one rank states the verdict on what all ranks gathered
    std::int64_t next = 0;
    for (int p = 0; p < size_; ++p) {
      const std::int64_t* f = &all[4 * static_cast<std::size_t>(p)];
      if (f[0] != all[0] || f[1] != all[1])
        throw InvalidMatrix("DistributedPlan: rank " + std::to_string(p) + " gives a " + std::to_string(f[0]) + " x " +
                            std::to_string(f[1]) + " global matrix, rank 0 a " + std::to_string(all[0]) + " x " +
                            std::to_string(all[1]) + " one");
      if (f[2] != next)
        throw InvalidMatrix("DistributedPlan: rank " + std::to_string(p) + "'s rows start at global row " +
                            std::to_string(f[2]) + ", expected " + std::to_string(next) +
                            " (ranks hold contiguous row ranges in rank order)");
      next += f[3];
    }
    if (next != all[0])
      throw DimensionError("DistributedPlan: rows over all ranks (= global rows)", all[0], next);
  });
  global_rows_ = rows.global_rows;
  global_cols_ = rows.global_cols;
  row_offsets_.assign(static_cast<std::size_t>(size_) + 1, 0);
  for (int p = 0; p < size_; ++p) row_offsets_[p + 1] = row_offsets_[p] + all[4 * static_cast<std::size_t>(p) + 3];
  collectively(c, [&] {
    if (!options.col_offsets.empty())
      col_offsets_ = options.col_offsets;
    else if (global_rows_ == global_cols_)
      col_offsets_ = row_offsets_;
    else
      col_offsets_ = partition_even(global_cols_, size_);
    check_partition(col_offsets_, size_, global_cols_, "DistributedPlan: column partition");
  });
  collectively(c, [&] {  // one column partition on every rank: rank 0's
    std::vector<std::int64_t> first(col_offsets_);
    MPI_Bcast(first.data(), static_cast<int>(first.size()), MPI_INT64_T, 0, c);
    if (first != col_offsets_)
      throw InvalidArgument("DistributedPlan: the column partition (options.col_offsets) differs from rank 0's");
  });
  local_rows_ = rows.rows.nrows;
  local_cols_ = static_cast<std::int32_t>(col_offsets_[rank_ + 1] - col_offsets_[rank_]);

  // 2. Split the rows: owned columns renumbered locally, the others compressed to the halo.
  const std::int64_t cb = col_offsets_[rank_], ce = col_offsets_[rank_ + 1];
  const auto& R = rows.rows;
  const Offset nnz = R.nnz();
  for (Offset k = 0; k < nnz; ++k) {
    const std::int64_t col = R.col_idx(k);
    if (col < cb || col >= ce) halo_cols_.push_back(col);
  }
  std::sort(halo_cols_.begin(), halo_cols_.end());
  halo_cols_.erase(std::unique(halo_cols_.begin(), halo_cols_.end()), halo_cols_.end());
  offd_nnz_ = 0;
  std::vector<Offset> dptr(static_cast<std::size_t>(local_rows_) + 1, 0), optr(dptr);
  for (std::int32_t i = 0; i < local_rows_; ++i) {
    Offset d = 0, o = 0;
    for (Offset k = R.row_ptr(i); k < R.row_ptr(i + 1); ++k) (R.col_idx(k) >= cb && R.col_idx(k) < ce ? d : o)++;
    dptr[i + 1] = dptr[i] + d;
    optr[i + 1] = optr[i] + o;
  }
  diag_nnz_ = dptr.back();
  offd_nnz_ = optr.back();
  std::vector<std::int32_t> dcol(static_cast<std::size_t>(diag_nnz_)), ocol(static_cast<std::size_t>(offd_nnz_));
  std::vector<Value> dval(dcol.size()), oval(ocol.size());
  for (std::int32_t i = 0; i < local_rows_; ++i) {
    Offset d = dptr[i], o = optr[i];
    for (Offset k = R.row_ptr(i); k < R.row_ptr(i + 1); ++k) {
      const std::int64_t col = R.col_idx(k);
      if (col >= cb && col < ce) {
        dcol[d] = static_cast<std::int32_t>(col - cb);
        dval[d++] = R.values(k);
      } else {
        ocol[o] = static_cast<std::int32_t>(std::lower_bound(halo_cols_.begin(), halo_cols_.end(), col) -
                                            halo_cols_.begin());
        oval[o++] = R.values(k);
      }
    }
  }
  // The off-diagonal block keeps only its non-empty rows when they are at most half.
  std::vector<std::int32_t> orows;
  for (std::int32_t i = 0; i < local_rows_; ++i)
    if (optr[i + 1] > optr[i]) orows.push_back(i);
  const bool compress = offd_nnz_ > 0 && 2 * static_cast<std::int64_t>(orows.size()) <= local_rows_;
  if (compress) {
    std::vector<Offset> cptr(1, 0);
    for (const std::int32_t i : orows) cptr.push_back(optr[i + 1]);
    optr = std::move(cptr);
  }
  offd_rows_count_ = offd_nnz_ > 0 ? static_cast<std::int32_t>(optr.size() - 1) : 0;
  // 3. Analyze each block through the ordinary Plan (any format, mapping, schedule).
  collectively(c, [&] {
    if (local_rows_ > 0)
      diag_.emplace(analyze(space, make_csr<Value, Offset, std::int32_t>(local_rows_, local_cols_, dptr, dcol, dval),
                            options.diagonal));
    if (offd_nnz_ > 0)
      offd_.emplace(analyze(space,
                            make_csr<Value, Offset, std::int32_t>(offd_rows_count_,
                                                                  static_cast<std::int32_t>(halo_cols_.size()), optr,
                                                                  ocol, oval),
                            options.off_diagonal));
  });
  if (compress) {
    offd_y_ = vector_type("pspmv::distributed::off_diagonal_y", orows.size());
    offd_rows_ = Kokkos::View<std::int32_t*, memory_space>("pspmv::distributed::off_diagonal_rows", orows.size());
    Kokkos::View<const std::int32_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> src(orows.data(),
                                                                                                      orows.size());
    Kokkos::deep_copy(space, offd_rows_, src);
    space.fence();  // orows goes out of scope
  }

  // 4. The communication plan: one collective exchange of which entries each rank needs.
  halo_ = exchange_halo_pattern(c, col_offsets_, halo_cols_);
  constexpr bool host_memory = Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;
  staged_ = options.stage_through_host.value_or(!host_memory && !mpi_cuda_aware());
  halo_x_ = vector_type("pspmv::distributed::halo", halo_cols_.size());
  send_buf_ = vector_type("pspmv::distributed::send", halo_.send_local.size());
  send_idx_ = Kokkos::View<std::int32_t*, memory_space>("pspmv::distributed::send_idx", halo_.send_local.size());
  {
    Kokkos::View<const std::int32_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> src(
        halo_.send_local.data(), halo_.send_local.size());
    Kokkos::deep_copy(space, send_idx_, src);
  }
  Value* recv_base = halo_x_.data();
  Value* send_base = send_buf_.data();
  if (staged_) {
    halo_host_ = Kokkos::View<Value*, Kokkos::HostSpace>("pspmv::distributed::halo_host", halo_cols_.size());
    send_host_ = Kokkos::View<Value*, Kokkos::HostSpace>("pspmv::distributed::send_host", halo_.send_local.size());
    recv_base = halo_host_.data();
    send_base = send_host_.data();
  }
  const MPI_Datatype t = sizeof(Value) == 8 ? MPI_DOUBLE : MPI_FLOAT;
  pc_->recvs.assign(halo_.recv_ranks.size(), MPI_REQUEST_NULL);
  pc_->sends.assign(halo_.send_ranks.size(), MPI_REQUEST_NULL);
  for (std::size_t n = 0; n < halo_.recv_ranks.size(); ++n)
    MPI_Recv_init(recv_base + halo_.recv_displs[n], halo_.recv_counts[n], t, halo_.recv_ranks[n], 0, c, &pc_->recvs[n]);
  for (std::size_t n = 0; n < halo_.send_ranks.size(); ++n)
    MPI_Send_init(send_base + halo_.send_displs[n], halo_.send_counts[n], t, halo_.send_ranks[n], 0, c, &pc_->sends[n]);
  space.fence();
}

template <class ExecSpace, class Value, class Offset>
void DistributedPlan<ExecSpace, Value, Offset>::check_vectors(const const_vector_type& x, const vector_type& y) const {
  auto local = [&] {
    const std::string on = "DistributedPlan::multiply on rank " + std::to_string(rank_) + ": ";
    if (static_cast<std::int64_t>(x.extent(0)) != local_cols_)
      throw DimensionError(on + "length of x (= the rank's owned columns)", local_cols_,
                           static_cast<std::int64_t>(x.extent(0)));
    if (static_cast<std::int64_t>(y.extent(0)) != local_rows_)
      throw DimensionError(on + "length of y (= the rank's rows)", local_rows_, static_cast<std::int64_t>(y.extent(0)));
    // Here, before any message is started: nothing may throw once the exchange has begun.
    const auto* xb = x.data();
    const auto* yb = y.data();
    if (xb != nullptr && yb != nullptr && xb < yb + y.extent(0) && yb < xb + x.extent(0))
      throw InvalidArgument(on + "x and y overlap in memory; pass distinct vectors");
  };
  if (!check_collectively_) return local();
  // collectively() prefixes the failing rank; the local message names it already.
  try {
    collectively(pc_->comm, local);
  } catch (const DimensionError& e) {
    const std::string m = e.what();
    const auto at = m.find(": ");
    const std::string body = m.substr(at + 2, m.rfind(": expected ") - at - 2);
    throw DimensionError(body, e.expected(), e.got());
  }
}

template <class ExecSpace, class Value, class Offset>
void DistributedPlan<ExecSpace, Value, Offset>::start_exchange(const ExecSpace& space, const const_vector_type& x) const {
  const std::int64_t n = static_cast<std::int64_t>(send_idx_.extent(0));
  if (n > 0) {
    Kokkos::parallel_for("pspmv::distributed::pack", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
                         detail::PackHalo<ExecSpace, Value>{send_buf_, x, send_idx_});
    if (staged_) Kokkos::deep_copy(space, send_host_, send_buf_);
  }
  // The entries are in place before MPI reads them, and the previous multiply's off-diagonal
  // kernel has finished reading the halo before a receive may write it (an MPI library that
  // reads and writes device memory receives into it directly).
  space.fence();
  if (!pc_->recvs.empty()) MPI_Startall(static_cast<int>(pc_->recvs.size()), pc_->recvs.data());
  if (n > 0) MPI_Startall(static_cast<int>(pc_->sends.size()), pc_->sends.data());
}

template <class ExecSpace, class Value, class Offset>
void DistributedPlan<ExecSpace, Value, Offset>::finish_receives(const ExecSpace& space) const {
  if (!pc_->recvs.empty()) MPI_Waitall(static_cast<int>(pc_->recvs.size()), pc_->recvs.data(), MPI_STATUSES_IGNORE);
  if (staged_ && halo_x_.extent(0) > 0) Kokkos::deep_copy(space, halo_x_, halo_host_);
}

template <class ExecSpace, class Value, class Offset>
void DistributedPlan<ExecSpace, Value, Offset>::multiply(const ExecSpace& space, Value alpha,
                                                         const const_vector_type& x, Value beta, const vector_type& y,
                                                         PhaseTimes* times) const {
  check_vectors(x, y);
  using clock = std::chrono::steady_clock;
  auto seconds = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  const auto t0 = clock::now();
  start_exchange(space, x);
  const auto t1 = clock::now();
  if (diag_) diag_->multiply(space, alpha, x, beta, y);
  if (times) space.fence();
  const auto t2 = clock::now();
  finish_receives(space);
  const auto t3 = clock::now();
  if (offd_ && off_diagonal_compressed()) {
    offd_->multiply(space, alpha, halo_x_, Value(0), offd_y_);
    Kokkos::parallel_for("pspmv::distributed::add_off_diagonal",
                         Kokkos::RangePolicy<ExecSpace>(space, 0, static_cast<std::int64_t>(offd_rows_.extent(0))),
                         detail::AddRows<ExecSpace, Value>{y, offd_y_, offd_rows_});
  } else if (offd_) {
    offd_->multiply(space, alpha, halo_x_, Value(1), y);
  }
  if (!pc_->sends.empty()) MPI_Waitall(static_cast<int>(pc_->sends.size()), pc_->sends.data(), MPI_STATUSES_IGNORE);
  if (times) {
    space.fence();
    const auto t4 = clock::now();
    *times = {seconds(t0, t1), seconds(t1, t2), seconds(t2, t3), seconds(t3, t4), seconds(t0, t4)};
  }
}

template <class ExecSpace, class Value, class Offset>
double DistributedPlan<ExecSpace, Value, Offset>::exchange(const ExecSpace& space, const const_vector_type& x) const {
  const auto local = [&] {
    if (static_cast<std::int64_t>(x.extent(0)) != local_cols_)
      throw DimensionError("DistributedPlan::exchange on rank " + std::to_string(rank_) +
                               ": length of x (= the rank's owned columns)",
                           local_cols_, static_cast<std::int64_t>(x.extent(0)));
  };
  if (check_collectively_) collectively(pc_->comm, local);  // a collective: every rank throws, or none
  else local();
  const auto t0 = std::chrono::steady_clock::now();
  start_exchange(space, x);
  finish_receives(space);
  if (!pc_->sends.empty()) MPI_Waitall(static_cast<int>(pc_->sends.size()), pc_->sends.data(), MPI_STATUSES_IGNORE);
  space.fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace pspmv
