#pragma once

namespace runner {

// SIGINT / SIGTERM handling for a run. The first signal asks the run to stop after (or, between
// samples, during) the point in flight; records already written stay valid. A second SIGINT exits
// at once with 130: the files on disk are complete up to the last finished point, since every
// write is an append of whole lines or an atomic rename.
void install_interrupt_handlers();
bool interrupt_requested();
int interrupt_signal();  // the signal received, 0 if none

// Thrown by the measurement loop when a stop was requested between samples.
struct Interrupted {};

}  // namespace runner
