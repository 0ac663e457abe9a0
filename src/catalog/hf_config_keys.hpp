#pragma once
// config.json keys whose names suggest a KV or layer effect (attention, heads, experts, state) but
// that change neither the KV cache's size nor its layout: the HF config reader does not warn that it
// left them uninterpreted.
#include <set>
#include <string>

namespace kvb {

const std::set<std::string>& config_keys_without_kv_effect();

}  // namespace kvb
