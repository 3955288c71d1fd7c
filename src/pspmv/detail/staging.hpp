#pragma once
/// @file staging.hpp
/// The upload of a host CSR into a device's memory through a pair of pinned host buffers:
/// the host threads copy chunk i + 1 of the caller's (pageable) arrays into one buffer while
/// the device copies chunk i out of the other, ordered on the caller's execution-space
/// instance; and the download of a device array into host memory the same way round
/// (Stager::copy_back, which the analysis of a device-resident CSR uses for its row_ptr, and
/// its col_idx where the SELL order needs it). A copy from pageable memory runs at a fraction
/// of the link's speed (the driver stages it itself, one thread, synchronously); from pinned
/// memory it runs at the link's.
/// Only Kokkos is called: the pinned space is the execution space's (StagingSpace), and
/// spaces without one stage through plain host memory (correct, not faster).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "pspmv/errors.hpp"
#include "pspmv/matrix/csr.hpp"
#include "pspmv/matrix/fingerprint.hpp"
#include "pspmv/matrix/host_parallel.hpp"

namespace pspmv {
namespace detail {

/// The host memory an execution space copies from at full speed: page-locked where Kokkos
/// has such a space for it, else HostSpace.
template <class ExecSpace>
struct StagingSpace {
  using type = Kokkos::HostSpace;
};
#ifdef KOKKOS_ENABLE_CUDA
template <>
struct StagingSpace<Kokkos::Cuda> {
  using type = Kokkos::CudaHostPinnedSpace;
};
#endif

/// Bytes of each of the two staging buffers.
constexpr std::size_t staging_chunk_bytes = std::size_t{32} << 20;
static_assert(staging_chunk_bytes % fingerprint_piece == 0, "a staging chunk holds whole fingerprint pieces");

/// Copies host arrays into Views of a device's memory through two staging buffers of
/// `chunk_bytes` each in StagingMemory (see the file comment). copy() may be called for
/// several arrays in turn; finish() (or the destructor) waits for the last chunk. The
/// caller's arrays must stay unchanged until finish() returns.
template <class ExecSpace, class StagingMemory = typename StagingSpace<ExecSpace>::type>
class Stager {
 public:
  using buffer_type = Kokkos::View<unsigned char*, StagingMemory>;

  /// Stages through `buffers` (two Views of at least `chunk_bytes` each, e.g. staging_buffers()).
  Stager(const ExecSpace& space, buffer_type buffers[2], std::size_t chunk_bytes)
      : space_(space), chunk_bytes_(chunk_bytes) {
    buffers_[0] = buffers[0];
    buffers_[1] = buffers[1];
  }
  Stager(const Stager&) = delete;
  Stager& operator=(const Stager&) = delete;
  ~Stager() { space_.fence(); }

  /// dst(0 .. n) = src[0 .. n), chunk by chunk (dst: a contiguous View of n entries). With
  /// `hashes`, also the hashes of src's fingerprint pieces (detail::piece_hashes of its bytes),
  /// each taken from the buffer just filled where the chunks hold whole pieces (else in a pass
  /// of their own over src, as with buffers of other sizes). Returns whether the hashes were
  /// taken in the fill.
  template <class Dst>
  bool copy(const Dst& dst, const typename Dst::non_const_value_type* src, std::vector<std::uint64_t>* hashes = nullptr) {
    using T = typename Dst::non_const_value_type;
    static_assert(std::is_trivially_copyable<T>::value, "staged arrays hold plain values");
    const std::size_t n = dst.extent(0), per_chunk = chunk_bytes_ / sizeof(T);
    if (per_chunk == 0 && n > 0)
      throw InvalidArgument("staging buffers of " + std::to_string(chunk_bytes_) + " bytes cannot hold one entry of " +
                            std::to_string(sizeof(T)) + " bytes");
    constexpr std::size_t piece = fingerprint_piece;
    const bool hash_in_fill = hashes && (per_chunk * sizeof(T)) % piece == 0;
    if (hashes) hashes->assign((n * sizeof(T) + piece - 1) / piece, 0);
    for (std::size_t begin = 0; begin < n; begin += per_chunk) {
      const std::size_t m = std::min(per_chunk, n - begin);
      unsigned char* buf = buffers_[next_].data();
      // The host threads fill this buffer while the device may still copy out of the other.
      const unsigned char* from = reinterpret_cast<const unsigned char*>(src + begin);
      const std::size_t bytes = m * sizeof(T), first_piece = begin * sizeof(T) / piece;
      for_pieces("pspmv::stage_fill", static_cast<std::int64_t>(bytes), static_cast<std::int64_t>(piece),
                 [&](std::int64_t i, std::int64_t b, std::int64_t e) {
                   const std::size_t len = static_cast<std::size_t>(e - b);
                   std::memcpy(buf + b, from + b, len);
                   if (hash_in_fill) {
                     const std::size_t index = first_piece + static_cast<std::size_t>(i);
                     (*hashes)[index] = hash_piece(buf + b, len, index);
                   }
                 });
      space_.fence();  // the previous chunk's copy is done: its buffer is free for the next fill
      const Kokkos::View<const T*, StagingMemory, Kokkos::MemoryTraits<Kokkos::Unmanaged>> chunk(
          reinterpret_cast<const T*>(buf), m);
      Kokkos::deep_copy(space_, Kokkos::subview(dst, std::make_pair(begin, begin + m)), chunk);
      next_ ^= 1;
      ++chunks_;
    }
    if (hashes && !hash_in_fill) *hashes = piece_hashes(src, n * sizeof(T));
    return hash_in_fill;
  }
  /// dst[0 .. n) = src(0 .. n), chunk by chunk, the other way (src: a contiguous View of n
  /// entries in the device's memory; dst: host memory): the device copies chunk i + 1 into one
  /// buffer while the host threads copy chunk i out of the other. Returns when dst is filled.
  template <class Src>
  void copy_back(typename Src::non_const_value_type* dst, const Src& src) {
    using T = typename Src::non_const_value_type;
    static_assert(std::is_trivially_copyable<T>::value, "staged arrays hold plain values");
    const std::size_t n = src.extent(0), per_chunk = chunk_bytes_ / sizeof(T);
    if (n == 0) return;
    if (per_chunk == 0)
      throw InvalidArgument("staging buffers of " + std::to_string(chunk_bytes_) + " bytes cannot hold one entry of " +
                            std::to_string(sizeof(T)) + " bytes");
    const auto issue = [&](std::size_t begin, int b) {
      const std::size_t m = std::min(per_chunk, n - begin);
      const Kokkos::View<T*, StagingMemory, Kokkos::MemoryTraits<Kokkos::Unmanaged>> chunk(
          reinterpret_cast<T*>(buffers_[b].data()), m);
      Kokkos::deep_copy(space_, chunk, Kokkos::subview(src, std::make_pair(begin, begin + m)));
      ++chunks_;
    };
    space_.fence();  // buffers_[next_] may still be the source of an earlier copy()
    issue(0, next_);
    for (std::size_t begin = 0; begin < n; begin += per_chunk) {
      const std::size_t m = std::min(per_chunk, n - begin);
      const int b = next_;
      space_.fence();  // chunk `begin` has landed in buffers_[b]; nothing else is in flight
      next_ ^= 1;
      if (begin + per_chunk < n) issue(begin + per_chunk, next_);  // runs while the host drains b
      const unsigned char* from = buffers_[b].data();
      unsigned char* to = reinterpret_cast<unsigned char*>(dst + begin);
      for_pieces("pspmv::stage_drain", static_cast<std::int64_t>(m * sizeof(T)),
                 static_cast<std::int64_t>(fingerprint_piece), [&](std::int64_t, std::int64_t lo, std::int64_t hi) {
                   std::memcpy(to + lo, from + lo, static_cast<std::size_t>(hi - lo));
                 });
    }
  }
  /// Waits for the last chunk's copy.
  void finish() { space_.fence(); }
  /// Chunks copied so far.
  std::size_t chunks() const { return chunks_; }

 private:
  ExecSpace space_;
  std::size_t chunk_bytes_;
  buffer_type buffers_[2];
  int next_ = 0;
  std::size_t chunks_ = 0;
};

/// The process's two staging buffers for ExecSpace, allocated on first use (page-locking
/// costs milliseconds, so they are kept) and released when Kokkos finalizes; `lock` holds
/// them for the caller until it is released.
template <class ExecSpace>
typename Stager<ExecSpace>::buffer_type* staging_buffers(std::unique_lock<std::mutex>& lock) {
  using Buffer = typename Stager<ExecSpace>::buffer_type;
  static std::mutex mutex;
  static Buffer buffers[2];
  lock = std::unique_lock<std::mutex>(mutex);
  if (buffers[0].extent(0) < staging_chunk_bytes) {
    for (Buffer& b : buffers)
      b = Buffer(Kokkos::view_alloc(Kokkos::WithoutInitializing, "pspmv::staging"), staging_chunk_bytes);
    Kokkos::push_finalize_hook([] {
      const std::lock_guard<std::mutex> g(mutex);
      for (Buffer& b : buffers) b = Buffer();
    });
  }
  return buffers;
}

/// A fingerprint taken during an upload (pspmv::fingerprint of the uploaded matrix).
struct StagedFingerprint {
  bool taken = false;
  std::uint64_t value = 0;
};

/// A copy of the host CSR A in ExecSpace's memory: through the staging buffers where that
/// memory is not the host's, else a plain deep copy. Returns when the copy is done. With
/// `fingerprint`, a staged upload also takes A's fingerprint, in the fill of the staging
/// buffers (Stager::copy; fingerprint->taken); a plain deep copy leaves it to the caller.
template <class ExecSpace, class Value, class Offset>
CsrMatrix<Value, Offset, std::int32_t, typename ExecSpace::memory_space> upload(
    const ExecSpace& space, const HostCsr<Value, Offset>& A, StagedFingerprint* fingerprint = nullptr) {
  using Mem = typename ExecSpace::memory_space;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible) {
    auto B = copy_to<Mem>(space, A);
    space.fence();
    return B;
  } else {
    CsrMatrix<Value, Offset, std::int32_t, Mem> B;
    B.nrows = A.nrows;
    B.ncols = A.ncols;
    const auto uninit = [](const char* label) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)); };
    B.row_ptr = Kokkos::View<Offset*, Mem>(uninit("pspmv::row_ptr"), A.row_ptr.extent(0));
    B.col_idx = Kokkos::View<std::int32_t*, Mem>(uninit("pspmv::col_idx"), A.col_idx.extent(0));
    B.values = Kokkos::View<Value*, Mem>(uninit("pspmv::values"), A.values.extent(0));
    std::unique_lock<std::mutex> lock;
    Stager<ExecSpace> stager(space, staging_buffers<ExecSpace>(lock), staging_chunk_bytes);
    std::vector<std::uint64_t> hashes[3];
    const bool hash = fingerprint != nullptr;
    stager.copy(B.row_ptr, A.row_ptr.data(), hash ? &hashes[0] : nullptr);
    stager.copy(B.col_idx, A.col_idx.data(), hash ? &hashes[1] : nullptr);
    stager.copy(B.values, A.values.data(), hash ? &hashes[2] : nullptr);
    stager.finish();
    if (hash) {
      std::uint64_t h = dimensions_hash(A.nrows, A.ncols);
      h = combine_pieces(h, A.row_ptr.extent(0) * sizeof(Offset), hashes[0]);
      h = combine_pieces(h, A.col_idx.extent(0) * sizeof(std::int32_t), hashes[1]);
      fingerprint->value = combine_pieces(h, A.values.extent(0) * sizeof(Value), hashes[2]);
      fingerprint->taken = true;
    }
    return B;
  }
}

}  // namespace detail
}  // namespace pspmv
