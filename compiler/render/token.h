// job.token: the per-job secret launchers use to authenticate each other (design §11).
#pragma once

#include <string>

namespace pai {

/// 32 random bytes from OpenSSL's CSPRNG (RAND_bytes) as 64 lowercase hex characters.
/// Throws std::runtime_error when the CSPRNG cannot deliver.
std::string generate_token();

/// The token stored in `path` (--token-file), without trailing whitespace. Throws
/// std::runtime_error "invalid token file '<path>': ..." unless it is hex digits only, at
/// least 32 of them; BoundedFileError "cannot read token file '<path>': ..." when it cannot be
/// read, is not a regular file or is larger than 4 KiB. The token is never part of a message.
std::string read_token_file(const std::string& path);

/// Writes `token` (no newline) to `path` with mode exactly 0600, through a temporary file
/// renamed over `path`. Throws std::runtime_error naming the path.
void write_token_file(const std::string& path, const std::string& token);

}  // namespace pai
