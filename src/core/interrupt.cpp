#include "core/interrupt.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>

namespace kvb {
namespace {

volatile std::sig_atomic_t g_signal = 0;
// The handler may only call async-signal-safe functions: the paths are copied here beforehand.
constexpr int kTemporarySlots = 16;
char g_temporary[kTemporarySlots][4096];
volatile std::sig_atomic_t g_temporary_armed[kTemporarySlots] = {};

extern "C" void on_interrupt(int sig) {
  if (g_signal != 0) {  // the second signal: the user means it
    for (int i = 0; i < kTemporarySlots; ++i)
      if (g_temporary_armed[i] != 0) ::unlink(g_temporary[i]);
    _exit(128 + sig);
  }
  g_signal = sig;
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // reads in progress finish; the loops look at the flag
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool interrupt_requested() { return g_signal != 0; }

int interrupt_exit_code() { return g_signal == 0 ? 0 : 128 + g_signal; }

std::string interrupt_signal_name() {
  if (g_signal == SIGINT) return "SIGINT";
  if (g_signal == SIGTERM) return "SIGTERM";
  return g_signal == 0 ? "" : "signal " + std::to_string(g_signal);
}

void throw_if_interrupted() {
  if (g_signal != 0) throw Interrupted();
}

long interruptible_read(int fd, char* buffer, unsigned long size, bool may_block) {
  while (true) {
    if (may_block) {
      pollfd p{fd, POLLIN, 0};
      const int ready = ::poll(&p, 1, 200);  // the timeout closes the race with a signal before poll
      throw_if_interrupted();
      if (ready == 0 || (ready < 0 && errno == EINTR)) continue;
    }
    const ssize_t n = ::read(fd, buffer, size);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    return n;
  }
}

int arm_temporary(const char* path) {
  static std::mutex m;
  const std::lock_guard lock(m);
  if (path == nullptr || std::strlen(path) >= sizeof(g_temporary[0])) return -1;
  for (int i = 0; i < kTemporarySlots; ++i) {
    if (g_temporary_armed[i] != 0) continue;
    std::memcpy(g_temporary[i], path, std::strlen(path) + 1);
    g_temporary_armed[i] = 1;
    return i;
  }
  return -1;
}

void disarm_temporary(int slot) {
  if (slot >= 0 && slot < kTemporarySlots) g_temporary_armed[slot] = 0;
}

void simulate_interrupt_for_test(int signal_number) { g_signal = signal_number; }

}  // namespace kvb
