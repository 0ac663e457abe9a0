#pragma once
// A plain-text table with columns padded to their widest cell; numbers right-aligned.
#include <string>
#include <vector>

namespace kvb {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);
  void add_row(std::vector<std::string> row);
  std::string render() const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace kvb
