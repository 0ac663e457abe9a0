// A fleet of replicas behind a router, end to end: what the router must conserve, what one
// replica must leave unchanged, and the effects each router exists for.
#include <gtest/gtest.h>

#include <string>

#include "core/errors.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation_setup.hpp"
#include "sim/simulator.hpp"

namespace kvb {
namespace {

// Eight system prompts of 4,000 tokens (Llama-3.1-8B: 128 KiB of KV per token, so 500 MiB each)
// on replicas whose 1.5 GiB GPU cache holds three of them at a time.
const char* kSharedPrefixes = R"(
model: llama-3.1-8b
hardware: h100
kv-cache-memory: 1.5GiB
max-model-len: 8192
seed: 3
workload:
  requests: 600
  arrival: {process: poisson, rate: 20}
  system-prefix: 4000
  system-prefixes: 8
  prompt: 100
  output: 20
)";

SimResult simulate(const std::string& yaml, const std::string& extra) {
  const auto s = parse_scenario(std::string(yaml) + extra, "fleet-test.yaml");
  SimOptions options;
  options.check_invariants = true;  // every replica's pool and tier audited after each step
  return run_simulation(prepare_simulation(s, std::nullopt), options);
}

TEST(Fleet, ReplicasShareTheTrafficWithoutLosingARequest) {
  const auto r = simulate(kSharedPrefixes, "replicas: 4\nrouter: round-robin\n");
  ASSERT_EQ(r.replicas.size(), 4u);
  std::int64_t requests = 0, prompt = 0, output = 0;
  for (const auto& rep : r.replicas) {
    requests += rep.requests;
    prompt += rep.prompt_tokens;
    output += rep.output_tokens;
    // Round-robin in arrival order: 600 requests over 4 replicas, 150 each.
    EXPECT_EQ(rep.requests, 150);
  }
  EXPECT_EQ(requests, r.requests);
  EXPECT_EQ(prompt, r.prompt_tokens);
  EXPECT_EQ(output, r.output_tokens);
  EXPECT_EQ(r.finished, 600);
}

TEST(Fleet, OneReplicaIsTheSingleEngine) {
  const auto one = simulate(kSharedPrefixes, "replicas: 1\nrouter: prefix-aware\n");
  const auto plain = simulate(kSharedPrefixes, "");
  EXPECT_TRUE(one.replicas.empty());
  EXPECT_EQ(one.ttft_s.p99, plain.ttft_s.p99);
  EXPECT_EQ(one.gpu_hit_tokens, plain.gpu_hit_tokens);
  EXPECT_EQ(one.makespan_s, plain.makespan_s);
}

TEST(Fleet, PrefixAwareRoutingKeepsSharedPrefixesWhereTheyAreCached) {
  // Round-robin sends every prefix to every replica: each cache cycles eight prefixes through room
  // for three. The prefix-aware router sends a prefix where it is cached, two per replica.
  const auto rr = simulate(kSharedPrefixes, "replicas: 4\nrouter: round-robin\n");
  const auto pa = simulate(kSharedPrefixes, "replicas: 4\nrouter: prefix-aware\n");
  EXPECT_GT(pa.gpu_hit_rate, rr.gpu_hit_rate + 0.2);
  EXPECT_LT(pa.ttft_s.mean, rr.ttft_s.mean);
  // The router's own record of what it sent where finds the same affinity without KV events.
  const auto approx = simulate(kSharedPrefixes, "replicas: 4\nrouter: prefix-approx\n");
  EXPECT_GT(approx.gpu_hit_rate, rr.gpu_hit_rate + 0.2);
}

TEST(Fleet, SessionRoutingKeepsAConversationsContext) {
  // Conversations of five turns with no shared prefix: only the replica that served the earlier
  // turns holds their context, so the session router hits where round-robin cannot.
  const char* chat = R"(
model: llama-3.1-8b
hardware: h100
kv-cache-memory: 4GiB
max-model-len: 8192
workload:
  requests: 400
  arrival: {process: poisson, rate: 4}
  turns: 5
  think-time: 1
  prompt: 300
  output: 30
)";
  const auto rr = simulate(chat, "replicas: 4\nrouter: round-robin\n");
  const auto session = simulate(chat, "replicas: 4\nrouter: session\n");
  // Turn t's prompt repeats turns 1..t-1: 4 of 5 turns reuse; round-robin lands a turn on its
  // conversation's replica one time in four.
  EXPECT_GT(session.gpu_hit_rate, 0.5);
  EXPECT_LT(rr.gpu_hit_rate, session.gpu_hit_rate / 2);
}

TEST(Fleet, BadFleetKeysAreNamed) {
  EXPECT_THROW(simulate(kSharedPrefixes, "replicas: 0\n"), UsageError);
  EXPECT_THROW(simulate(kSharedPrefixes, "router: random\n"), UsageError);
  EXPECT_THROW(simulate(kSharedPrefixes, "replicas: many\n"), UsageError);
}

}  // namespace
}  // namespace kvb

namespace kvb {
namespace {

// A client that gives up (workload client-timeout): aborted requests are counted apart, leave no
// block behind (the audit runs after every step), and nothing answered took longer than the timeout.
const char* kOverloaded = R"(
model: llama-3.1-8b
hardware: h100
kv-cache-memory: 2GiB
max-model-len: 16384
max-num-seqs: 64
workload:
  requests: 300
  arrival: {process: closed, users: 100}
  prompt: 3000
  output: 200
  client-timeout: 4
)";

TEST(ClientTimeout, AbortedRequestsAreCountedApartAndNoAnswerTookLonger) {
  const auto r = simulate(kOverloaded, "");
  EXPECT_GT(r.timed_out, 0);
  EXPECT_GT(r.finished, 0);
  EXPECT_EQ(r.finished + r.timed_out, r.requests);
  EXPECT_LE(r.e2e_s.max, 4.0);
  EXPECT_EQ(r.ttft_s.count, r.finished);
  // The makespan covers the aborted requests too: the pool cannot be more than full on average.
  EXPECT_LE(r.kv_occupancy_mean, 1.0);
}

TEST(ClientTimeout, ALoneRequestLongerThanTheTimeoutIsAborted) {
  // 2,000 decode steps of Llama-3.1-8B take well over one second on an H100.
  const auto r = simulate(R"(
model: llama-3.1-8b
hardware: h100
max-model-len: 16384
workload:
  requests: 1
  arrival: {process: fixed, rate: 1}
  prompt: 1000
  output: 2000
  client-timeout: 1
)",
                          "");
  EXPECT_EQ(r.timed_out, 1);
  EXPECT_EQ(r.finished, 0);
  EXPECT_EQ(r.output_tokens, 0);
}

TEST(ClientTimeout, ATimedOutTurnEndsItsConversation) {
  const std::string chat = R"(
model: llama-3.1-8b
hardware: h100
kv-cache-memory: 2GiB
max-model-len: 16384
workload:
  requests: 400
  arrival: {process: poisson, rate: 20}
  turns: 4
  prompt: 2000
  output: 300
)";
  const auto patient = simulate(chat, "");
  const auto impatient = simulate(chat + "  client-timeout: 2\n", "");
  EXPECT_EQ(patient.timed_out, 0);
  EXPECT_GT(impatient.timed_out, 0);
  EXPECT_EQ(impatient.finished + impatient.timed_out, impatient.requests);
}

}  // namespace
}  // namespace kvb
