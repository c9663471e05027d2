// mpirun -np 2 with libjoule-mpi and JOULE_TRACE: every blocking MPI call is
// an MPI state with its call name in each rank's trace, in both formats.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "event_test_util.hpp"
#include "run_command.hpp"

namespace {

using namespace trace_test;

std::string run(const std::string& cmd) { return joule_test::run_command(cmd); }

TEST(MpiTrace, BarriersAreMpiCallsInEveryRank) {
  for (const std::string format : {"paraver", "chrome"}) {
    SCOPED_TRACE(format);
    TempDir dir;
    const std::string out =
        run(std::string("OMPI_MCA_btl=self,vader OMPI_MCA_mpi_yield_when_idle=1 "
                        "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ") +
            JOULE_MPIEXEC + " -np 2 --oversubscribe -x JOULE_WORKERS=1 -x JOULE_LENDING=off" +
            " -x JOULE_TRACE=" + format + " -x JOULE_TRACE_DIR=" + dir.path() + " " +
            JOULE_MPI_TRACE_PROBE);
    ASSERT_NE(out.find("[exit 0]"), std::string::npos) << out;
    const auto files = dir.files(format == "paraver" ? ".prv" : ".json");
    ASSERT_EQ(files.size(), 2u) << out;
    for (const auto& f : files) {
      SCOPED_TRACE(f);
      EXPECT_NE(f.find("-rank"), std::string::npos) << "rank in the file name";
      const Events ev = format == "paraver" ? load_prv_events(f, f.substr(0, f.size() - 4) + ".pcf")
                                            : load_json_events(f);
      EXPECT_EQ(ev.mpi_calls,
                (std::vector<std::string>{"MPI_Barrier", "MPI_Barrier", "MPI_Barrier"}));
      EXPECT_EQ(ev.mpi_leaves, 3);
      EXPECT_EQ(ev.mpi_states, 3);
    }
  }
}

}  // namespace
