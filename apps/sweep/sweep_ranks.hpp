#pragma once
// The ranks of a job: MPI when the app was built with it and started by an MPI launcher
// (mpirun, srun), otherwise one rank. Only the main thread calls these (MPI_THREAD_FUNNELED).

#include <functional>
#include <string>
#include <vector>

namespace kktdae::apps {

/// Starts MPI when built with it and launched by mpirun/mpiexec or srun (the launcher's
/// environment says so); otherwise the job is this one process. Call once, first in main().
void startRanks(int* argc, char*** argv);

/// This process's rank, 0 … rankCount() − 1.
int rankIndex();
/// The number of ranks in the job.
int rankCount();
/// Whether MPI is running (false for a threads-only run, even in an MPI build).
bool mpiRunning();
/// Whether the app was built with MPI.
bool builtWithMpi();

/// Rank 0's `text`, on every rank.
std::string broadcastText(const std::string& text);
/// Every rank's `text` in rank order, on rank 0 (empty elsewhere).
std::vector<std::string> gatherText(const std::string& text);
/// Waits until every rank arrives here, calling `poll` about every 10 ms meanwhile (rank 0 uses it
/// to notice that the job is being stopped).
void waitForAllRanks(const std::function<void()>& poll);

/// Ends the whole job now with `code` (MPI_Abort under MPI, std::exit otherwise).
[[noreturn]] void abortRanks(int code);
/// Ends MPI normally; call once, last.
void finishRanks();

}  // namespace kktdae::apps
