#include "common/gnuplot.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include "common/interrupt.hpp"
#include "common/output_files.hpp"
#include "common/png_check.hpp"

extern char** environ;

namespace kktdae::apps {
namespace {

/// posix_spawn's attributes and file actions, destroyed on every exit.
struct SpawnSetup {
  posix_spawnattr_t attributes{};
  posix_spawn_file_actions_t actions{};
  SpawnSetup() {
    posix_spawnattr_init(&attributes);
    posix_spawn_file_actions_init(&actions);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
  }
};

std::string waitDescription(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

/// How long gnuplot has to end once a signal was forwarded to it before it is killed: it ends at
/// once, except that a Ctrl-C to the process group can deadlock it in its own SIGINT handler
/// (5 of 56 trials), where it would wait for ever and the app with it.
constexpr std::chrono::seconds kPlotterGrace{2};

/// Waits for `child`, polling (a blocking waitpid could miss a signal that lands just before
/// it); forwards a SIGINT/SIGTERM the app receives meanwhile, once, and kills gnuplot when it has
/// not ended kPlotterGrace later.
int waitForChild(pid_t child) {
  std::optional<std::chrono::steady_clock::time_point> deadline;
  bool killed = false;
  int status = 0;
  while (true) {
    const pid_t result = ::waitpid(child, &status, WNOHANG);
    if (result == child) return status;
    if (result < 0 && errno != EINTR) return -1;
    if (interrupted() && !deadline) {
      ::kill(child, interruptSignal());
      deadline = std::chrono::steady_clock::now() + kPlotterGrace;
    }
    if (deadline && !killed && std::chrono::steady_clock::now() >= *deadline) {
      ::kill(child, SIGKILL);
      killed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

void removeQuietly(const std::filesystem::path& path) {
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
}

/// gnuplot wrote the file itself: flush it before the rename, as writeFileAtomically does.
bool syncFile(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  const bool synced = ::fsync(fd) == 0;
  return ::close(fd) == 0 && synced;
}

}  // namespace

std::string PlotOutcome::line() const { return (status == PlotStatus::Rendered ? "plot: " : "plot not rendered: ") + note; }

RunOutcome outcomeOf(const PlotOutcome& plot) {
  switch (plot.status) {
    case PlotStatus::Rendered:
    case PlotStatus::GnuplotMissing:
    case PlotStatus::NothingToDraw: return RunOutcome::Complete;
    case PlotStatus::Interrupted: return RunOutcome::Interrupted;
    case PlotStatus::Failed: return RunOutcome::Failed;
  }
  return RunOutcome::Failed;
}

PlotsOutcome outcomeOf(const std::vector<PlotOutcome>& plots) {
  PlotsOutcome all;
  for (const PlotOutcome& plot : plots) {
    all.outcome = worse(all.outcome, outcomeOf(plot));
    if (plot.status == PlotStatus::Failed && all.message.empty()) all.message = plot.note;
  }
  return all;
}

std::string gnuplotQuote(const std::string& text) {
  std::string quoted = "\"";
  for (char c : text) quoted += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return quoted + "\"";
}

PlotOutcome renderPlot(RunDirectory& dir, const std::string& script_name, const std::string& png_name,
                       const std::string& script) {
  dir.write(script_name, script);
  const std::filesystem::path png = dir.file(png_name);
  if (interrupted()) return {PlotStatus::Interrupted, "interrupted before rendering " + png.string()};
  // gnuplot writes the PNG itself; render to a uniquely named temporary and rename it, so that a
  // failed render leaves no half-written image and two runs into one directory never share one.
  const std::filesystem::path temporary = createTemporaryNextTo(png);

  SpawnSetup setup;
  // The child starts with SIGINT and SIGTERM at their defaults and none blocked, whatever the
  // app's own handlers: a Ctrl-C to the process group stops gnuplot too.
  sigset_t defaults, empty;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigemptyset(&empty);
  posix_spawnattr_setsigdefault(&setup.attributes, &defaults);
  posix_spawnattr_setsigmask(&setup.attributes, &empty);
  posix_spawnattr_setflags(&setup.attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  posix_spawn_file_actions_addchdir_np(&setup.actions, dir.path().c_str());
  posix_spawn_file_actions_addopen(&setup.actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&setup.actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);

  std::string program = "gnuplot", dash_e = "-e", outfile = "outfile='" + temporary.filename().string() + "'",
              script_argument = script_name;
  std::vector<char*> argv = {program.data(), dash_e.data(), outfile.data(), script_argument.data(), nullptr};
  pid_t child = 0;
  const int spawned = ::posix_spawnp(&child, "gnuplot", &setup.actions, &setup.attributes, argv.data(), environ);
  if (spawned != 0) {
    removeQuietly(temporary);
    if (spawned == ENOENT) {
      return {PlotStatus::GnuplotMissing,
              "gnuplot not found: render with `cd " + dir.path().string() + " && gnuplot " + script_name + "`"};
    }
    return {PlotStatus::Failed, "cannot start gnuplot: " + std::string(std::strerror(spawned))};
  }
  testSignalAtPlot();
  const int status = waitForChild(child);
  if (interrupted()) {
    removeQuietly(temporary);
    return {PlotStatus::Interrupted, "interrupted while rendering " + png.string()};
  }
  if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    removeQuietly(temporary);
    return {PlotStatus::Failed, "gnuplot failed on " + dir.file(script_name).string() + " (" +
                                    (status < 0 ? std::string("lost track of it") : waitDescription(status)) + ")"};
  }
  const std::string defect = pngDefect(temporary);
  if (!defect.empty()) {
    removeQuietly(temporary);
    return {PlotStatus::Failed, "gnuplot exited 0 but " + png.string() + " is not a whole PNG (" + defect +
                                    "; is the disk full?)"};
  }
  std::error_code error;
  if (!syncFile(temporary)) error = std::error_code(errno, std::generic_category());
  if (!error) std::filesystem::rename(temporary, png, error);
  if (error) {
    removeQuietly(temporary);
    return {PlotStatus::Failed, "cannot publish " + png.string() + ": " + error.message()};
  }
  dir.recordPublished(png_name);
  return {PlotStatus::Rendered, png.string()};
}

}  // namespace kktdae::apps
