#pragma once
// Ctrl-C and SIGTERM (a Slurm or Kubernetes time limit) during a long run: the first signal asks
// the running loop to stop after what it has finished, so the cases measured so far are written
// (atomically) and the pools are freed by their owners; a second signal exits at once.
#include <stdexcept>
#include <string>

namespace kvb {

// Installs the SIGINT and SIGTERM handlers (main does, once).
void install_interrupt_handlers();

// True once SIGINT or SIGTERM arrived: loops stop at their next case boundary.
bool interrupt_requested();

// The signal's exit status (130 for SIGINT, 143 for SIGTERM); 0 when none arrived.
int interrupt_exit_code();

// "SIGINT", "SIGTERM"; "" when none arrived.
std::string interrupt_signal_name();

// Thrown where work in progress cannot be kept (a simulation cut half-way); the loop that owns the
// finished cases catches it, main catches the rest.
struct Interrupted : std::runtime_error {
  Interrupted() : std::runtime_error("interrupted") {}
};

// Throws Interrupted when a signal arrived.
void throw_if_interrupted();

// The one read of an input that may block (a pipe, a FIFO waiting for its writer, a terminal): with
// `may_block` it waits in poll(), which a signal ends (a read would restart: SA_RESTART), and throws
// Interrupted once one arrived. Returns read(2)'s count (0 at the end, -1 with errno on an error).
// The descriptor is expected open with O_NONBLOCK.
long interruptible_read(int fd, char* buffer, unsigned long size, bool may_block);

// The temporary files being filled (core/temp_file): a second signal, which exits at once,
// removes them so no half-written file is left behind. arm returns a slot (-1 when all are in use
// or the path is too long); disarm(-1) does nothing.
int arm_temporary(const char* path);
void disarm_temporary(int slot);

// For tests: as if the signal arrived (0 clears).
void simulate_interrupt_for_test(int signal_number);

}  // namespace kvb
