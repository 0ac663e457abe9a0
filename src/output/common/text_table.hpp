#pragma once
// A plain-text table with columns padded to their widest cell; numbers right-aligned.
#include <string>
#include <vector>

namespace kvb {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);
  void add_row(std::vector<std::string> row);
  // A row whose last cell (e.g. "waived: why") runs on across the columns after it instead of
  // widening its own column.
  void add_spanning_row(std::vector<std::string> row);
  std::string render() const;

 private:
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::size_t> spanning_cell_;  // per row: the index of the cell that spans, or npos
};

}  // namespace kvb
