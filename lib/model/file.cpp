#include "lib/model/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace pg::model {

namespace {

ReadResult failure(ReadResult::Status status, std::string error) {
  ReadResult r;
  r.status = status;
  r.error = std::move(error);
  return r;
}

// Reads `fd` to its end into `out`, which holds `done` bytes already and may grow; stops with
// TooLarge past `maxBytes`.
ReadResult readAll(int fd, std::uint64_t maxBytes, std::string out, std::size_t done) {
  while (true) {
    if (done == out.size()) {
      std::size_t grown = out.size() < 4096 ? 4096 : out.size() * 2;
      if (grown > maxBytes + 1) grown = static_cast<std::size_t>(maxBytes) + 1;
      if (grown <= out.size()) grown = out.size() + 1;
      out.resize(grown);
    }
    ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return failure(ReadResult::Status::Unreadable, std::strerror(errno));
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
    if (done > maxBytes)
      return failure(ReadResult::Status::TooLarge,
                     "more than " + std::to_string(maxBytes) + " bytes");
  }
  out.resize(done);
  ReadResult r;
  r.text = std::move(out);
  return r;
}

}  // namespace

ReadResult readFile(const std::filesystem::path& path, std::uint64_t maxBytes) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return failure(ReadResult::Status::Unreadable, std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    ReadResult r = failure(ReadResult::Status::Unreadable, std::strerror(errno));
    ::close(fd);
    return r;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return failure(ReadResult::Status::NotRegular,
                   S_ISDIR(st.st_mode) ? "a folder, not a file"
                                       : "not a regular file (a FIFO, socket or device)");
  }
  if (static_cast<std::uint64_t>(st.st_size) > maxBytes) {
    ::close(fd);
    return failure(ReadResult::Status::TooLarge, std::to_string(st.st_size) + " bytes");
  }
  // Back to blocking reads for a regular file (they never block long).
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  // One byte more than fstat says, so that reading to the end (the read that returns 0) does
  // not have to grow the buffer: growing copies the file into twice its size.
  std::string out(static_cast<std::size_t>(st.st_size) + 1, '\0');
  ReadResult r = readAll(fd, maxBytes, std::move(out), 0);
  ::close(fd);
  return r;
}

ReadResult readStream(int fd, std::uint64_t maxBytes) {
  return readAll(fd, maxBytes, {}, 0);
}

bool resolvesInside(const std::filesystem::path& path, const std::filesystem::path& folder) {
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::weakly_canonical(path, ec);
  if (ec) return false;
  const std::filesystem::path top = std::filesystem::weakly_canonical(folder, ec);
  if (ec) return false;
  const std::filesystem::path rel = real.lexically_relative(top);
  return !rel.empty() && *rel.begin() != "..";
}

}  // namespace pg::model
