#pragma once
// A simulation scenario (scenarios/workloads/*.yaml): the server as vLLM flags, the workload,
// the time-model calibration, and an optional default sweep. Keys mirror vLLM's flag names.
// The typed fields are the scenario: its file is read once (sim/scenario_reader.cpp) and every
// later edit (--set, --sweep, the flags, size's points) is applied to them through the field
// tables (sim/scenario_overrides.cpp); no YAML document is kept.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fleet/fleet_spec.hpp"
#include "perf/calibration.hpp"
#include "server/server_spec.hpp"
#include "sim/distribution.hpp"
#include "trace/trace_reader.hpp"

namespace kvb {

// How sessions arrive: a Poisson process, bursts of one, one at a fixed rate, or a closed loop of
// users who send the next turn when the last one is answered.
enum class ArrivalProcess { kPoisson, kBursty, kFixed, kClosed };

struct ArrivalSpec {
  ArrivalProcess process = ArrivalProcess::kPoisson;
  double rate = 1;           // new sessions per second (poisson, fixed; bursty: during bursts)
  double burst_seconds = 0;  // bursty: on period
  double idle_seconds = 0;   // bursty: off period
  int users = 0;             // closed: sessions kept in flight
};

// Counts that size the simulation's memory and time, capped where they are read (the flag, a
// workload file, --set): a run past these would take hours and gigabytes, not answer sooner.
inline constexpr std::int64_t kMaxRequests = 10'000'000;
inline constexpr std::int64_t kMaxClosedUsers = 1'000'000;
inline constexpr std::int64_t kMaxDocuments = 10'000'000;
inline constexpr std::int64_t kMaxSystemPrefixes = 1'000'000;
inline constexpr std::int64_t kMaxSweepPoints = 10'000;
inline constexpr std::int64_t kMaxSeed = 9'223'372'036'854'775'807;  // any 64-bit signed value
// Arrivals per second: below one a day (1.2e-5) a run is days of simulated idle time; above this
// no single server admits requests.
inline constexpr double kMinArrivalRate = 1e-5;
inline constexpr double kMaxArrivalRate = 1e6;

struct WorkloadSpec {
  std::int64_t requests = 1000;  // requests (turns) in total
  ArrivalSpec arrival;
  Distribution prompt = Distribution::fixed(512);  // new user tokens per turn
  Distribution output = Distribution::fixed(128);
  Distribution system_prefix = Distribution::fixed(0);  // shared prefix tokens
  int system_prefixes = 1;  // distinct system prompts, picked uniformly per session
  Distribution turns = Distribution::fixed(1);
  Distribution think_time = Distribution::fixed(0);  // seconds between a reply and the next turn
  int documents = 0;                                 // a pool of documents reused across sessions
  Distribution document_tokens = Distribution::fixed(0);
  double document_zipf = 0;            // popularity exponent; 0 = uniform
  bool documents_round_robin = false;  // document-order: round-robin: session i reads document i mod N
  double repeat_share = 0;          // share of sessions that repeat an earlier session's first turn exactly
  bool reset_prefix_cache = false;  // vLLM's /reset_prefix_cache before each arrival
  // A first turn longer than max-model-len: vLLM rejects it, so the run stops with the scenario
  // named (false), unless the scenario asks to clip it to fit as a truncating client would (true).
  bool clip_long_prompts = false;
  // The client gives up on a request this long after sending it (0: never), as benchmark clients
  // do (aiohttp's default total timeout is 300 s): vLLM aborts it when the connection closes, and
  // it counts as timed out, not in the latencies or throughput.
  double client_timeout_s = 0;
  // The client stops this long after its first request (0: when `requests` have been sent), as
  // GuideLLM's --max-seconds and inference-perf's stage duration do: requests in flight then are
  // aborted and counted as timed out, and no turn or session starts after it.
  double duration_s = 0;
};

struct SweepAxis {
  std::string key;  // a scenario key, dotted for nesting: workload.arrival.rate
  std::vector<std::string> values;
};

struct Scenario {
  std::string name;
  std::string description;
  std::string origin;  // the file it came from
  std::uint64_t seed = 1;
  ServerSpec server;
  FleetSpec fleet;  // replicas of `server` behind a router; one by default
  WorkloadSpec workload;
  std::optional<TraceInput> trace;         // --trace: the traffic replays this file instead of `workload`
  std::optional<Calibration> calibration;  // absent: the GPU's default (perf/calibration.hpp)
  std::vector<SweepAxis> sweep;            // the scenario's default sweep
  // The top-level keys its file wrote, in order (size --workload names the server keys it sets aside).
  std::vector<std::string> file_keys;
};

// Reads a scenario from YAML text (sim/scenario_reader.cpp); every error names `origin` and the key.
Scenario parse_scenario(const std::string& text, const std::string& origin);

// Finds a shipped scenario by name, or reads a file path.
Scenario load_scenario(const std::string& name_or_path);
// The scenario read from `file` with its relative `hardware:` and `model:` paths rebased onto the
// file's folder (load_scenario does this); UsageError naming the file and the key when the path is
// not there.
Scenario with_paths_from_folder(Scenario s, const std::string& file);
std::vector<std::string> shipped_scenario_names();

// The scenario with `key` (dotted: workload.arrival.rate) set to `value` (YAML text): that one
// field read by its key's reader (the server's field table, the workload's) onto a copy, checked
// as the file's key is; `what` names the flag in errors (e.g. "--set", "--sweep").
Scenario with_override(const Scenario& s, const std::string& key, const std::string& value,
                       const std::string& what);

// The scenario on `server`, checked by the server keys' readers (what a file holding it would be
// refused for, naming the scenario), so a server set from flags obeys the file's rules.
Scenario with_server(const Scenario& s, const ServerSpec& server);
// The scenario on `fleet` (replicas and router), the rest unchanged.
Scenario with_fleet(const Scenario& s, const FleetSpec& fleet);
// The scenario keys that describe the server (all but name, description, seed, workload, sweep).
bool is_server_key(const std::string& key);

// Parses "key=v1,v2,..." (the --sweep flag).
SweepAxis parse_sweep_axis(const std::string& text);
// UsageError naming `what` when the axes' product passes kMaxSweepPoints (each point is a whole
// simulation: a million-point sweep is refused at parse time, not after hours).
void check_sweep_points(const std::vector<SweepAxis>& axes, const std::string& what);

}  // namespace kvb
