#include "sweep/sweep_ranks.hpp"

#include <chrono>
#include <cstdlib>
#include <thread>

#ifdef KKTDAE_SWEEP_WITH_MPI
#include <mpi.h>
#endif

namespace kktdae::apps {
namespace {

bool g_mpi = false;
int g_rank = 0;
int g_size = 1;

#ifdef KKTDAE_SWEEP_WITH_MPI
/// The variables OpenMPI's mpirun, MPICH's Hydra and SLURM's srun (PMI-1, PMI-2, PMIx) set.
bool launchedByMpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}
#endif

}  // namespace

void startRanks([[maybe_unused]] int* argc, [[maybe_unused]] char*** argv) {
#ifdef KKTDAE_SWEEP_WITH_MPI
  if (!launchedByMpi()) return;
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  g_mpi = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
#endif
}

int rankIndex() { return g_rank; }
int rankCount() { return g_size; }
bool mpiRunning() { return g_mpi; }

bool builtWithMpi() {
#ifdef KKTDAE_SWEEP_WITH_MPI
  return true;
#else
  return false;
#endif
}

std::string broadcastText(const std::string& text) {
#ifdef KKTDAE_SWEEP_WITH_MPI
  if (g_mpi && g_size > 1) {
    long long size = static_cast<long long>(text.size());
    MPI_Bcast(&size, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    std::string received = g_rank == 0 ? text : std::string(static_cast<std::size_t>(size), '\0');
    // Texts past 2 GB would need chunking; a sweep's run list is far below that.
    MPI_Bcast(received.data(), static_cast<int>(size), MPI_CHAR, 0, MPI_COMM_WORLD);
    return received;
  }
#endif
  return text;
}

std::vector<std::string> gatherText(const std::string& text) {
#ifdef KKTDAE_SWEEP_WITH_MPI
  if (g_mpi && g_size > 1) {
    int size = static_cast<int>(text.size());
    std::vector<int> sizes(static_cast<std::size_t>(g_size));
    MPI_Gather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> offsets(sizes.size(), 0);
    long long total = 0;
    for (std::size_t r = 0; r < sizes.size(); ++r) {
      offsets[r] = static_cast<int>(total);
      total += sizes[r];
    }
    std::string all(g_rank == 0 ? static_cast<std::size_t>(total) : 0, '\0');
    MPI_Gatherv(text.data(), size, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
    if (g_rank != 0) return {};
    std::vector<std::string> texts;
    for (std::size_t r = 0; r < sizes.size(); ++r) texts.push_back(all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(sizes[r])));
    return texts;
  }
#endif
  return {text};
}

void waitForAllRanks(const std::function<void()>& poll) {
#ifdef KKTDAE_SWEEP_WITH_MPI
  if (g_mpi && g_size > 1) {
    // A non-blocking barrier, so that rank 0 keeps noticing a stop while the others finish.
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Ibarrier(MPI_COMM_WORLD, &request);
    int done = 0;
    while (true) {
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (done) return;
      poll();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
#endif
  poll();
}

void abortRanks(int code) {
#ifdef KKTDAE_SWEEP_WITH_MPI
  if (g_mpi) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::exit(code);
}

void finishRanks() {
#ifdef KKTDAE_SWEEP_WITH_MPI
  if (g_mpi) MPI_Finalize();
#endif
  g_mpi = false;
}

}  // namespace kktdae::apps
