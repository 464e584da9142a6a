// open_test_registry: a TopicRegistry over a real cluster::EmbeddedStore in
// `dir` (its `spool-metadata-store`), opened as run.cc opens it, for the
// broker tests that need a registry on disk. `store` is reset first, then
// receives the new store; keep it declared before the registry it serves
// and reset the registry before calling this again with the same `store`.
#pragma once

#include <filesystem>
#include <memory>

#include "broker/topic_registry.h"
#include "cluster/embedded_store.h"

namespace spool::broker {

inline Result<std::unique_ptr<TopicRegistry>> open_test_registry(const std::filesystem::path& dir,
                                                                 std::unique_ptr<cluster::EmbeddedStore>& store,
                                                                 int32_t broker_id = 0) {
  store.reset();
  auto opened = cluster::EmbeddedStore::open(dir.string());
  if (!opened) return Status::error(opened.error().message);
  store = std::move(*opened);
  return TopicRegistry::open(*store, broker_id, dir);
}

}  // namespace spool::broker
