#include "replica/isr_metrics.h"

namespace spool::replica {

IsrMetrics& isr_metrics() {
  static IsrMetrics* m = new IsrMetrics();  // never destroyed: threads may record during exit
  return *m;
}

}  // namespace spool::replica
