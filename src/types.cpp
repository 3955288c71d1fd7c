#include "pspmv/types.hpp"

#include "pspmv/errors.hpp"

namespace pspmv {

std::string to_string(Format f) {
  switch (f) {
    case Format::csr: return "csr";
    case Format::sell: return "sell";
  }
  return "?";
}

std::string to_string(Mapping m) {
  switch (m) {
    case Mapping::thread_per_row: return "thread_per_row";
    case Mapping::team_per_row: return "team_per_row";
  }
  return "?";
}

std::string to_string(Schedule s) {
  switch (s) {
    case Schedule::static_chunks: return "static_chunks";
    case Schedule::dynamic_chunks: return "dynamic_chunks";
    case Schedule::nnz_balanced: return "nnz_balanced";
    case Schedule::work_stealing: return "work_stealing";
    case Schedule::serial: return "serial";
  }
  return "?";
}

std::string to_string(Operation o) {
  switch (o) {
    case Operation::plain: return "plain";
    case Operation::transpose: return "transpose";
  }
  return "?";
}

Operation parse_operation(std::string_view s) {
  if (s == "plain" || s == "none") return Operation::plain;
  if (s == "transpose" || s == "t") return Operation::transpose;
  throw InvalidArgument("unknown operation '" + std::string(s) + "' (expected plain or transpose)");
}

Format parse_format(std::string_view s) {
  if (s == "csr") return Format::csr;
  if (s == "sell") return Format::sell;
  throw InvalidArgument("unknown format '" + std::string(s) + "' (expected csr or sell)");
}

Mapping parse_mapping(std::string_view s) {
  if (s == "thread" || s == "thread_per_row") return Mapping::thread_per_row;
  if (s == "team" || s == "team_per_row") return Mapping::team_per_row;
  throw InvalidArgument("unknown mapping '" + std::string(s) +
                        "' (expected thread_per_row or team_per_row)");
}

Schedule parse_schedule(std::string_view s) {
  if (s == "static" || s == "static_chunks") return Schedule::static_chunks;
  if (s == "dynamic" || s == "dynamic_chunks") return Schedule::dynamic_chunks;
  if (s == "nnz" || s == "nnz_balanced") return Schedule::nnz_balanced;
  if (s == "stealing" || s == "work_stealing") return Schedule::work_stealing;
  if (s == "serial") return Schedule::serial;
  throw InvalidArgument("unknown schedule '" + std::string(s) +
                        "' (expected static_chunks, dynamic_chunks, nnz_balanced, work_stealing or serial)");
}

}  // namespace pspmv
