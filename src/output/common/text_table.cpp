#include "output/common/text_table.hpp"

#include <algorithm>
#include <cctype>

namespace kvb {
namespace {

// A number, signed or not (or "-" for none), is right-aligned; "--root reads ..." is text, not a
// negative number.
bool numeric_looking(const std::string& cell) {
  const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  if (cell.empty()) return false;
  if (digit(cell.front())) return true;
  if (cell.front() == '+') return cell.size() > 1 && digit(cell[1]);
  return cell.front() == '-' && (cell.size() == 1 || digit(cell[1]) || cell[1] == '.');
}

}  // namespace

TextTable::TextTable(std::vector<std::string> header) {
  rows_.push_back(std::move(header));
  spanning_cell_.push_back(std::string::npos);
}

void TextTable::add_row(std::vector<std::string> row) {
  row.resize(rows_.front().size());
  rows_.push_back(std::move(row));
  spanning_cell_.push_back(std::string::npos);
}

void TextTable::add_spanning_row(std::vector<std::string> row) {
  const std::size_t last = row.empty() ? std::string::npos : row.size() - 1;
  row.resize(rows_.front().size());
  rows_.push_back(std::move(row));
  spanning_cell_.push_back(last);
}

std::string TextTable::render() const {
  std::vector<std::size_t> width(rows_.front().size(), 0);
  for (std::size_t ri = 0; ri < rows_.size(); ++ri) {
    const auto& r = rows_[ri];
    for (std::size_t i = 0; i < r.size() && i < spanning_cell_[ri]; ++i)
      width[i] = std::max(width[i], r[i].size());
  }
  std::string out;
  for (std::size_t ri = 0; ri < rows_.size(); ++ri) {
    const auto& r = rows_[ri];
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (i == spanning_cell_[ri]) {
        line += (i == 0 ? "" : "  ") + r[i];
        break;
      }
      const std::string pad(width[i] - r[i].size(), ' ');
      line += (i == 0 ? "" : "  ");
      line += (ri > 0 && numeric_looking(r[i])) ? pad + r[i] : r[i] + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
    if (ri == 0) {
      std::string rule;
      for (std::size_t i = 0; i < width.size(); ++i)
        rule += (i == 0 ? "" : "  ") + std::string(width[i], '-');
      out += rule + "\n";
    }
  }
  return out;
}

}  // namespace kvb
