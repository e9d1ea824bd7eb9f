// Reading a whole file or stream with its size bounded before anything is allocated. Every
// read of bytes a repository controls goes through here (manifests, the config file, schema
// files, the originals of rendered input, snapshots, standard input), so that no input can
// make the tool allocate without bound, and none can block it (a FIFO is refused unopened).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace pg::model {

struct ReadResult {
  enum class Status : std::uint8_t {
    Ok,
    TooLarge,    // more than the limit: `error` says how large ("N bytes", "more than N bytes")
    NotRegular,  // a FIFO, socket or device: never read, since reading one can block forever
    Unreadable,  // `error` is the system's reason
  };
  Status status = Status::Ok;
  std::string text;   // the bytes, when Ok
  std::string error;  // why not, otherwise
  bool ok() const { return status == Status::Ok; }
};

// Reads a regular file whole when it has at most `maxBytes` bytes. The size is checked
// before the buffer is allocated, and again while reading (a file may grow).
ReadResult readFile(const std::filesystem::path& path, std::uint64_t maxBytes);

// Reads an open descriptor (standard input) to its end, stopping once it has given more than
// `maxBytes` bytes: TooLarge then, with what was read dropped.
ReadResult readStream(int fd, std::uint64_t maxBytes);

// Whether `path`, with every symlink along it resolved (a part that does not exist yet taken as
// written), lies in `folder` (resolved the same way) or is `folder` itself. What confines the
// reads and writes that a repository's own files name (config paths, snapshot folders, the
// files rendered input names) to the repository.
bool resolvesInside(const std::filesystem::path& path, const std::filesystem::path& folder);

}  // namespace pg::model
