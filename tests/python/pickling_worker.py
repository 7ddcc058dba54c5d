"""What test_pickling.py's worker process runs: one simulate() of the model, start and options it was
sent (by pickle, in a process started with the spawn method), returning the result (by pickle)."""
import kktdae


def run(system, initial, options):
    return kktdae.simulate(system, initial, options)
