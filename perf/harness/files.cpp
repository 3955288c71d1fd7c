#include "harness/files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

#include "pspmv/pspmv.hpp"

namespace pspmv_cli {

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw pspmv::Error(path + ": cannot write (opening " + tmp + " failed)");
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if ((std::fclose(f) != 0) || !ok) {
    std::remove(tmp.c_str());
    throw pspmv::Error(path + ": write failed; no file was left behind");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw pspmv::Error(path + ": cannot move the finished file into place");
  }
}

void write_output(const std::string& path, const std::string& text) {
  if (path == "-") std::cout << text;
  else write_file_atomically(path, text);
}

void make_dirs(const std::string& d) {
  for (std::size_t i = 1; i <= d.size(); ++i) {
    if (i < d.size() && d[i] != '/') continue;
    const std::string part = d.substr(0, i);
    if (::mkdir(part.c_str(), 0777) != 0 && errno != EEXIST)
      throw pspmv::Error("cannot create the output folder " + part + ": " + std::strerror(errno));
  }
  struct stat st {};
  if (::stat(d.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw pspmv::Error("cannot create the output folder " + d + ": exists and is not a folder");
}

}  // namespace pspmv_cli
