#include "exchange.hpp"

namespace btmz {
namespace {

constexpr Face kFaces[] = {kWest, kEast, kSouth, kNorth};

// Face sizes depend only on the zone grid, so buffers are sized once.
long face_size(const Zone& z, Face f) {
  const long across = (f == kWest || f == kEast) ? z.ny : z.nx;
  return across * z.nz * kComponents;
}

}  // namespace

Exchange::Exchange(const ZoneGrid& grid, const std::vector<int>& owner, int rank, MPI_Comm comm)
    : grid_(grid), owner_(owner), rank_(rank), comm_(comm) {
  for (const Zone& z : grid.zones()) {
    if (owner[std::size_t(z.id)] != rank) continue;
    for (Face f : kFaces) {
      const int n = grid.neighbour(z.id, f);
      const int peer = owner[std::size_t(n)];
      if (peer == rank) continue;
      // Tags name the receiving zone and face, so both sides agree on them.
      recvs_.push_back({z.id, f, peer, z.id * 4 + f, std::vector<double>(face_size(z, f))});
      sends_.push_back({z.id, f, peer, n * 4 + opposite(f), std::vector<double>(face_size(z, f))});
    }
  }
  requests_.resize(recvs_.size() + sends_.size());
}

void Exchange::run(std::vector<ZoneField*>& fields) {
  std::size_t r = 0;
  for (Message& m : recvs_)
    MPI_Irecv(m.data.data(), int(m.data.size()), MPI_DOUBLE, m.peer, m.tag, comm_, &requests_[r++]);
  for (Message& m : sends_) {
    fields[std::size_t(m.zone)]->pack_interior(m.face, m.data.data());
    MPI_Isend(m.data.data(), int(m.data.size()), MPI_DOUBLE, m.peer, m.tag, comm_, &requests_[r++]);
  }
  // Zones on this rank: straight copies while the messages travel.
  for (const Zone& z : grid_.zones()) {
    if (owner_[std::size_t(z.id)] != rank_) continue;
    for (Face f : kFaces) {
      const int n = grid_.neighbour(z.id, f);
      if (owner_[std::size_t(n)] != rank_) continue;
      local_.resize(std::size_t(face_size(z, f)));
      fields[std::size_t(n)]->pack_interior(opposite(f), local_.data());
      fields[std::size_t(z.id)]->unpack_ghost(f, local_.data());
    }
  }
  if (!requests_.empty()) MPI_Waitall(int(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  for (Message& m : recvs_) fields[std::size_t(m.zone)]->unpack_ghost(m.face, m.data.data());
}

}  // namespace btmz
