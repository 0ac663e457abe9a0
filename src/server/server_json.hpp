#pragma once
// The resolved server in a JSON document, one table of its keys (server_json.cpp): every document
// kvbench writes (size, simulate, trace, calibrate) writes its server with write_server_json and
// reads it back with read_server_json, so a key is spelled once and each document round-trips it.
// It is the resolved server, where sim/server_fields is the server as asked (optional flags, `auto`):
// each key is its field's scenario key in snake case (a test holds the two tables to that), and
// hf_id and weight_dtype exist only once resolved.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "server/resolved_server.hpp"

namespace kvb {

// The server's keys at the top level of `doc` (a document's own keys beside them). A key whose
// value is the default a reader takes for it where absent (data_parallel_size 1, expert_parallel
// false) is left out, so a document of one engine reads as before DP x EP existed.
void write_server_json(const ResolvedServer& s, nlohmann::json& doc);

// The server from `doc`'s keys. model and hardware are required; the others take their defaults
// where a document from before them has none. UsageError naming `origin` and the key for a value out
// of range; nlohmann::json::exception for one of the wrong type.
ResolvedServer read_server_json(const nlohmann::json& doc, const std::string& origin);

// The keys the table writes, in its order (a document's reader tells its own keys from these).
std::vector<std::string> server_json_keys();

}  // namespace kvb
