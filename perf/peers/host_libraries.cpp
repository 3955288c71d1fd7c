#include "peers/host_libraries.hpp"

namespace pspmv_peers {

template <class Value, class Offset>
std::vector<Peer> host_peers(const HostCsrView<Value, Offset>& A, const Value* x, Value* y,
                             std::int64_t expected_calls) {
  std::vector<Peer> out;
  out.push_back(eigen_peer(A, x, y));
  append(out, librsb_peers(A, x, y));
  append(out, mkl_peers(A, x, y, expected_calls));
  return out;
}

#define PSPMV_HOST_PEERS(V, O) \
  template std::vector<Peer> host_peers<V, O>(const HostCsrView<V, O>&, const V*, V*, std::int64_t);
PSPMV_PEER_TYPES(PSPMV_HOST_PEERS)

}  // namespace pspmv_peers
