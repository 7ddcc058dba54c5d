#include "sweep/sweep_journal.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <stdexcept>

namespace kktdae::apps {
namespace {

/// KKTDAE_SWEEP_TEST_KILL="R:N": rank R kills itself (SIGKILL, as an out-of-memory kill or a lost
/// node would) right after journaling its N-th row; "R:N:INT" or "R:N:TERM" sends itself SIGINT
/// or SIGTERM instead (Ctrl-C, a scheduler's stop). For the tests of a failed or stopped job and
/// --resume. Sets `signal_number`.
long killAfterRows(int rank, int& signal_number) {
  const char* hook = std::getenv("KKTDAE_SWEEP_TEST_KILL");
  if (hook == nullptr) return -1;
  int hook_rank = -1;
  long rows = -1;
  char name[8] = {};
  const int fields = std::sscanf(hook, "%d:%ld:%7s", &hook_rank, &rows, name);
  if (fields < 2 || hook_rank != rank) return -1;
  const std::string signal_name = fields == 3 ? name : "KILL";
  signal_number = signal_name == "INT" ? SIGINT : signal_name == "TERM" ? SIGTERM : SIGKILL;
  return rows;
}

const std::regex& journalName() {
  static const std::regex name(R"(journal-a([0-9]{1,9})-r([0-9]{1,9})\.jsonl)");
  return name;
}

}  // namespace

std::filesystem::path journalPath(const std::filesystem::path& dir, int attempt, int rank) {
  return dir / ("journal-a" + std::to_string(attempt) + "-r" + std::to_string(rank) + ".jsonl");
}

JournalWriter::JournalWriter(const std::filesystem::path& dir, int attempt, int rank)
    : path_(journalPath(dir, attempt, rank)), rank_(rank), attempt_(attempt), kill_after_(killAfterRows(rank, kill_signal_)) {
  file_ = std::fopen(path_.c_str(), "w");
  if (file_ == nullptr) throw std::runtime_error("cannot create the journal " + path_.string() + ": " + std::strerror(errno));
}

JournalWriter::~JournalWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

void JournalWriter::append(const SweepRow& row, const std::string& key) {
  nlohmann::json line;
  line["index"] = row.index;
  line["key"] = key;
  line["rank"] = rank_;
  line["attempt"] = attempt_;
  line["wall_seconds"] = row.wall_seconds;
  line["results"] = row.results;
  const std::string text = line.dump() + "\n";
  const std::lock_guard<std::mutex> lock(mutex_);
  if (sealed_) return;
  // Flushed to the kernel per row: a killed process keeps every row written before it died.
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::fflush(file_) != 0) {
    throw std::runtime_error("cannot write the journal " + path_.string() + ": " + std::strerror(errno));
  }
  if (++written_ == kill_after_) std::raise(kill_signal_);
}

void JournalWriter::seal() {
  const std::lock_guard<std::mutex> lock(mutex_);
  sealed_ = true;
}

JournalContents readJournals(const std::filesystem::path& dir, const SweepPlan& plan) {
  JournalContents contents;
  std::vector<std::filesystem::path> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    std::smatch match;
    const std::string name = entry.path().filename().string();
    if (!std::regex_match(name, match, journalName())) continue;
    files.push_back(entry.path());
    contents.last_attempt = std::max(contents.last_attempt, std::stoi(match[1].str()));
  }
  if (error) throw std::invalid_argument(dir.string() + ": cannot be listed: " + error.message());
  std::sort(files.begin(), files.end());  // the same rows win whatever order the directory lists
  contents.files = files.size();
  for (const std::filesystem::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::size_t begin = 0;
    long line_number = 0;
    while (begin < text.size()) {
      const std::size_t end = text.find('\n', begin);
      ++line_number;
      const std::string where = file.string() + ":" + std::to_string(line_number);
      if (end == std::string::npos) break;  // cut short by a dying rank: that run is missing
      nlohmann::json line;
      try {
        line = nlohmann::json::parse(text.substr(begin, end - begin));
      } catch (const nlohmann::json::parse_error&) {
        throw std::invalid_argument(where + ": not a journal row");
      }
      begin = end + 1;
      if (!line.is_object() || !line["index"].is_number_unsigned() || !line["key"].is_string() ||
          !line["results"].is_object()) {
        throw std::invalid_argument(where + ": not a journal row");
      }
      const std::size_t index = line["index"].get<std::size_t>();
      if (index >= plan.runs.size()) {
        throw std::invalid_argument(where + ": run " + std::to_string(index) + " is not in the sweep file (" +
                                    std::to_string(plan.runs.size()) + " runs): the file changed since");
      }
      if (line["key"].get<std::string>() != runKey(plan, index)) {
        throw std::invalid_argument(where + ": run " + std::to_string(index) +
                                    " was made with other parameters than the sweep file gives now (" +
                                    line["key"].get<std::string>() + "): the file changed since; start a fresh sweep in another directory");
      }
      if (contents.rows.count(index) != 0) continue;  // run twice (deterministic): keep the first
      SweepRow row;
      row.index = index;
      row.results = line["results"];
      row.wall_seconds = line.value("wall_seconds", 0.0);
      contents.rows.emplace(index, std::move(row));
      contents.places.emplace(index, RunPlace{line.value("rank", 0), line.value("attempt", 1)});
    }
  }
  return contents;
}

}  // namespace kktdae::apps
