#pragma once
// Output files of the tool: written whole or not at all.
#include <string>

namespace pspmv_cli {

/// Writes text to path through a temporary file renamed into place.
/// @throws pspmv::Error when it cannot be written; no file is left behind then.
void write_file_atomically(const std::string& path, const std::string& text);

/// Writes text to standard output when path is "-", else to path (write_file_atomically).
void write_output(const std::string& path, const std::string& text);

/// Creates folder d and its missing parents.
/// @throws pspmv::Error naming the part that cannot be created, or d when it is no folder.
void make_dirs(const std::string& d);

}  // namespace pspmv_cli
