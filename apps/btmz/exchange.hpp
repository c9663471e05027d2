// The zone-boundary exchange done before every step: each zone's x and y
// ghost planes are filled from the interior of the zone across that face,
// copied directly when both zones live on this rank and sent with MPI
// (non-blocking, one message per face) when they do not.
#pragma once

#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include <vector>

#include "zone_field.hpp"

namespace btmz {

class Exchange {
 public:
  // fields[id]: the zone's field when this rank owns it, null otherwise.
  Exchange(const ZoneGrid& grid, const std::vector<int>& owner, int rank, MPI_Comm comm);
  void run(std::vector<ZoneField*>& fields);

 private:
  struct Message {
    int zone;  // receiving zone (ghosts) or sending zone (interior)
    Face face;
    int peer;  // the other rank
    int tag;
    std::vector<double> data;
  };
  const ZoneGrid& grid_;
  const std::vector<int>& owner_;
  int rank_;
  MPI_Comm comm_;
  std::vector<Message> recvs_, sends_;
  std::vector<MPI_Request> requests_;
  std::vector<double> local_;
};

}  // namespace btmz
