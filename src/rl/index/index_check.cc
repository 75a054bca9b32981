#include "rl/index/index_check.h"

#include <algorithm>

namespace rl {

IndexCheck::IndexCheck(const IndexCheckTarget& target)
    : index_(target.index),
      prefix_(target.prefix),
      violationsPrefix_(target.violationsPrefix),
      coveredTypes_(target.metaData.recordTypesForIndex(*target.index)) {}

bool IndexCheck::covers(const RecordType& type) const {
  return std::find(coveredTypes_.begin(), coveredTypes_.end(), &type) != coveredTypes_.end();
}

}  // namespace rl
