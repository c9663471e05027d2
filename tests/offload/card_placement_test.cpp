// The card's threads placed with KMP_AFFINITY's type[,permute[,offset]]
// (JOULE_CARD_AFFINITY), printed at start-up as KMP_AFFINITY=verbose does
// (JOULE_CONFIG_DUMP=1), and the errors for placements the card refuses.
#include <gtest/gtest.h>
#include <joule/offload.hpp>

#include <string>
#include <vector>

namespace {

// The "bound to OS proc set {p}" PUs the card printed, in thread order.
std::vector<int> card_pus(const std::string& affinity) {
  testing::internal::CaptureStderr();
  {
    joule::runtime rt({{"JOULE_CARD", "emulated"},
                       {"JOULE_CARD_TOPOLOGY", "package:1 core:2 pu:2"},
                       {"JOULE_CARD_THREADS", "3"},
                       {"JOULE_CARD_AFFINITY", affinity},
                       {"JOULE_CONFIG_DUMP", "1"},
                       {"JOULE_WORKERS", "1"}});
  }
  const std::string err = testing::internal::GetCapturedStderr();
  std::vector<int> pus;
  for (std::size_t at = err.find("joule card: thread "); at != std::string::npos;
       at = err.find("joule card: thread ", at + 1)) {
    const std::size_t brace = err.find('{', at);
    pus.push_back(std::stoi(err.substr(brace + 1)));
  }
  return pus;
}

std::string start_error(const std::string& affinity) {
  try {
    joule::runtime rt({{"JOULE_CARD", "emulated"}, {"JOULE_CARD_AFFINITY", affinity}});
  } catch (const joule::error& e) {
    EXPECT_EQ(e.code(), JOULE_ERR_CONFIG);
    return e.what();
  }
  return "";
}

// PUs of 2 cores x 2 contexts: core 0 has PUs 0 and 1, core 1 has 2 and 3.
TEST(CardPlacement, PermuteAndOffsetReachTheCardsThreads) {
  EXPECT_EQ(card_pus("compact"), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(card_pus("scatter"), (std::vector<int>{0, 2, 1}));
  EXPECT_EQ(card_pus("compact,1"), (std::vector<int>{0, 2, 1}));    // one package: scatter
  EXPECT_EQ(card_pus("compact,0,1"), (std::vector<int>{1, 2, 3}));  // starts one place on
  EXPECT_EQ(card_pus("scatter,0,3"), (std::vector<int>{3, 0, 2}));  // wraps around
  EXPECT_EQ(card_pus("balanced"), (std::vector<int>{0, 1, 2}));
}

TEST(CardPlacement, BadPlacementsNameTheForm) {
  for (const char* bad : {"compact,x", "compact,1,2,3", "compact,-1", "spread,1", "compact,"}) {
    const std::string e = start_error(bad);
    EXPECT_NE(e.find("JOULE_CARD_AFFINITY"), std::string::npos) << bad << ": " << e;
    EXPECT_NE(e.find("optionally followed by ,permute[,offset]"), std::string::npos)
        << bad << ": " << e;
  }
  EXPECT_NE(start_error("balanced,1").find("balanced takes no permute or offset"),
            std::string::npos);
  EXPECT_NE(start_error("compact,3").find("permute must be 0..2"), std::string::npos);
}

}  // namespace
