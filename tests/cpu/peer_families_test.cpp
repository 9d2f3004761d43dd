// The one table of peer families (results/peer_families.csv): every source the peer script
// writes has a family, and a bad table names its file, line and field.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "analysis/peer_families.hpp"
#include "core/io/input_error.hpp"
#include "tests/cpu/test_folder.hpp"

namespace attnlab {
namespace {

class PeerFamilies : public TestFolder {
 protected:
  PeerFamilies() : TestFolder("attnlab-peer-families-") {}

  std::string error_of(const std::string& text) {
    try {
      read_peer_families(write("families.csv", text));
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  }
};

constexpr const char* header = "family,short_name,implementation,source\n";

TEST_F(PeerFamilies, SourcesGroupByFamilyInFileOrderFirstFoundFirst) {
  const std::vector<SourceFamily> f = read_peer_families(write(
      "families.csv", std::string(header) + "ours,o,varlen,mine\nFA,fa,packed,sdpa-packed\nFA,fa,packed,varlen-packed\n"
                                            "FA,fa,varlen,varlen\n"));
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].name, "ours");
  EXPECT_EQ(f[1].short_name, "fa");
  EXPECT_EQ(f[1].sources[static_cast<int>(Implementation::packed)],
            (std::vector<std::string>{"sdpa-packed", "varlen-packed"}));
  EXPECT_EQ(f[1].sources[static_cast<int>(Implementation::varlen)], std::vector<std::string>{"varlen"});
  EXPECT_TRUE(f[1].sources[static_cast<int>(Implementation::padded)].empty());
}

TEST_F(PeerFamilies, ABadTableNamesItsFileLineAndField) {
  const std::string file = (dir_ / "families.csv").string();
  EXPECT_EQ(error_of("family,source\n"), file + ":1: expected the header family,short_name,implementation,source");
  EXPECT_EQ(error_of(std::string(header) + "FA,fa,windowed,x\n"),
            file + ":2: implementation: expected naive, padded, packed or varlen, got \"windowed\"");
  EXPECT_EQ(error_of(std::string(header) + "FA,fa,varlen\n"),
            file + ":2: expected 4 cells (family,short_name,implementation,source), got 3");
  EXPECT_EQ(error_of(std::string(header) + "FA,fa,varlen,x\nFA,FA2,packed,y\n"),
            file + ":3: short_name: family FA is \"fa\" above, got \"FA2\"");
  EXPECT_EQ(error_of(std::string(header) + "FA,fa,varlen,x\nFlex,fl,varlen,x\n"),
            file + ":3: source: x is listed under family FA above");
  EXPECT_EQ(error_of(header),
            file + ": no families; expected the header family,short_name,implementation,source and rows");
}

// Every source the PyTorch peers can write (ALL_PEERS of attnlab/peers/backends.py) belongs to a
// family, so no measured peer is left out of a family's ratios.
TEST(ShippedPeerFamilies, EveryPeerTheScriptRunsHasAFamily) {
  std::ifstream script(std::string(ATTNLAB_SOURCE_DIR) + "/attnlab/peers/backends.py");
  std::stringstream text;
  text << script.rdbuf();
  const std::string s = text.str();
  const auto begin = s.find("ALL_PEERS = ["), end = s.find(']', begin);
  ASSERT_NE(begin, std::string::npos);
  const std::string list = s.substr(begin, end - begin);
  const std::regex name("\"([^\"]+)\"");
  int peers = 0;
  for (auto it = std::sregex_iterator(list.begin(), list.end(), name); it != std::sregex_iterator(); ++it, ++peers)
    EXPECT_NE(family_of((*it)[1].str()), nullptr) << (*it)[1];
  EXPECT_GT(peers, 0);
  EXPECT_EQ(family_of(std::string(ours_family))->name, ours_family);
  EXPECT_EQ(family_of("torch-varlen_attn-packed")->name, fa2_family);  // the windowed scenarios' packed FA2 run
}

}  // namespace
}  // namespace attnlab
