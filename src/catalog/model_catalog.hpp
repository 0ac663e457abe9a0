#pragma once
// The model catalog (scenarios/models/*.yaml, compiled in) and name resolution for --model.
#include <string>
#include <vector>

#include "catalog/model_spec.hpp"

namespace kvb {

// All catalog models, in file-name order. Loaded once; a broken entry is a UsageError.
const std::vector<ModelSpec>& model_catalog();

// Resolves --model: a catalog name or alias (case-insensitive), a path to a Hugging Face
// config.json, or a path to a model YAML in the catalog's format. Warnings (fields of a
// config.json that could not be interpreted) are appended to `warnings`.
// Unknown names throw UsageError listing the closest names.
ModelSpec resolve_model(const std::string& name_or_path, std::vector<std::string>& warnings);

// The catalog model a name stands for: its name, an alias or its Hugging Face id (case-insensitive),
// or, for a path ("/models/Qwen/Qwen3-8B", "~/.cache/x/qwen3-8b"), its last two or last one
// components. Null when none is in the catalog. Reads no file.
const ModelSpec* find_catalog_model(const std::string& name);

// Reads one model from YAML text in the catalog's format.
ModelSpec model_from_yaml(const std::string& text, const std::string& origin);

}  // namespace kvb
