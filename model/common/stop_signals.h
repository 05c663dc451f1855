// SIGINT and SIGTERM: a run stopped by either leaves each results folder it
// had open as "<final>.partial" with an INCOMPLETE file naming the signal
// (results_dir.h), and the rfsim process exits 130 (SIGINT) or 143 (SIGTERM).
// The handler only opens, writes and closes files (async-signal-safe).
#pragma once

#include <string>

namespace rfsim {

// Installs the handlers where the process left SIGINT and SIGTERM at their
// defaults. `exit_process`: the handler ends the process with 128 + the
// signal (the rfsim program); otherwise it re-raises the signal with its
// default action (a library inside someone else's program).
void installStopHandlers(bool exit_process);

// A file the handler writes its reason into (a results folder's INCOMPLETE)
// until forgotten; returns a slot for forgetStopFile, or -1 when the table
// is full or the path too long (the folder then keeps only the destructor's
// reason).
int rememberStopFile(const std::string& path);
void forgetStopFile(int slot);

}  // namespace rfsim
