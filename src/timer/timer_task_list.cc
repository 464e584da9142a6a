#include "timer/timer_task_list.h"

namespace spool::timer {

TimerTaskList::~TimerTaskList() {
  // Break the self-references of tasks still linked so they are freed.
  std::vector<std::shared_ptr<TimerTask>> dropped;
  flush(dropped);
}

void TimerTaskList::add(std::shared_ptr<TimerTask> task) {
  TimerTask* t = task.get();
  detail::ListNode* n = &t->node_;
  n->task = t;
  n->prev = root_.prev;
  n->next = &root_;
  root_.prev->next = n;
  root_.prev = n;
  t->list_ = this;
  t->self_ = std::move(task);
  ++size_;
}

std::shared_ptr<TimerTask> TimerTaskList::remove(TimerTask* task) {
  if (task->list_ != this) return nullptr;
  detail::ListNode* n = &task->node_;
  n->prev->next = n->next;
  n->next->prev = n->prev;
  n->prev = n;
  n->next = n;
  task->list_ = nullptr;
  --size_;
  return std::move(task->self_);
}

void TimerTaskList::flush(std::vector<std::shared_ptr<TimerTask>>& out) {
  while (root_.next != &root_) out.push_back(remove(root_.next->task));
  expiration_ms_ = -1;
}

}  // namespace spool::timer
