// pngDefect (apps/common/png_check.hpp): a PNG cut short, as gnuplot leaves one on a full disk,
// is told apart from a whole one.
#include <catch2/catch.hpp>

#include <fstream>

#include "apps/app_runner.hpp"
#include "common/png_check.hpp"

using namespace kktdae::testing;
using kktdae::apps::pngDefect;

namespace {

/// A whole 1×1 PNG, chunk by chunk: IHDR, IDAT, IEND (CRCs are not checked, so zeros do).
std::string minimalPng() {
  auto chunk = [](const std::string& type, const std::string& data) {
    std::string bytes;
    const auto length = static_cast<std::uint32_t>(data.size());
    for (int shift : {24, 16, 8, 0}) bytes += static_cast<char>((length >> shift) & 0xff);
    return bytes + type + data + std::string(4, '\0');
  };
  return std::string("\x89PNG\r\n\x1a\n", 8) + chunk("IHDR", std::string(13, '\1')) + chunk("IDAT", "xyz") +
         chunk("IEND", "");
}

std::filesystem::path writeBytes(const std::string& name, const std::string& bytes) {
  const auto dir = freshOutputDir("png_check_" + name);
  std::filesystem::create_directories(dir);
  const auto path = dir / (name + ".png");
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

}  // namespace

TEST_CASE("png check: a whole PNG passes, empty, truncated, foreign and padded files do not", "[apps][png]") {
  const std::string png = minimalPng();
  CHECK(pngDefect(writeBytes("whole", png)).empty());
  CHECK(pngDefect(writeBytes("empty", "")) == "empty (0 bytes)");
  CHECK(pngDefect(writeBytes("foreign", "GIF89a" + png)) == "no PNG signature");
  // Cut at every length short of the whole file: each is refused.
  for (std::size_t length = 1; length < png.size(); ++length) {
    INFO(length);
    CHECK(!pngDefect(writeBytes("cut", png.substr(0, length))).empty());
  }
  CHECK(pngDefect(writeBytes("padded", png + "junk")) == "4 bytes after the IEND chunk");
}

TEST_CASE("png check: the plots gnuplot renders for the apps pass", "[apps][png]") {
  if (!gnuplotOnPath()) {
    WARN("gnuplot is not on the PATH");
    return;
  }
  const auto dir = freshOutputDir("png_check_circle");
  const AppRun run = runApp(KKTDAE_CIRCLE_APP, "--out '" + dir.string() + "'");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(pngDefect(dir / "phi.png").empty());
}
