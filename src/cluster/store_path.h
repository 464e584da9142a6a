// Path rules shared by the MetadataStore backends: ZooKeeper's znode path
// syntax (absolute, '/'-separated, no empty, "." or ".." component, no
// trailing '/' except the root, no NUL). Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace spool::cluster {

// Empty when `path` is a valid node path, else why not.
std::string path_error(std::string_view path);
// "/a/b" -> "/a"; "/a" -> "/"; "/" -> "/".
std::string parent_path(std::string_view path);
// "/a/b" -> "b"; "/" -> "".
std::string node_name(std::string_view path);
// parent + "/" + name, without doubling the root's '/'.
std::string join_path(std::string_view parent, std::string_view name);

}  // namespace spool::cluster
