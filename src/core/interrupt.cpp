#include "core/interrupt.hpp"

#include <unistd.h>

#include <csignal>
#include <cstring>

namespace kvb {
namespace {

volatile std::sig_atomic_t g_signal = 0;
// The handler may only call async-signal-safe functions: the path is copied here beforehand.
char g_temporary[4096];
volatile std::sig_atomic_t g_temporary_armed = 0;

extern "C" void on_interrupt(int sig) {
  if (g_signal != 0) {  // the second signal: the user means it
    if (g_temporary_armed != 0) ::unlink(g_temporary);
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

void note_temporary_output(const char* path) {
  g_temporary_armed = 0;
  if (path == nullptr || std::strlen(path) >= sizeof(g_temporary)) return;
  std::memcpy(g_temporary, path, std::strlen(path) + 1);
  g_temporary_armed = 1;
}

void simulate_interrupt_for_test(int signal_number) { g_signal = signal_number; }

}  // namespace kvb
