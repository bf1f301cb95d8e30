// Running a program from a test: start it in a directory with stdout and stderr captured in files
// there, wait for it, and read its exit code and output. Shared by the command-line tests.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace test_support {

/// What a finished program left: its exit code (128 + signal when a signal ended it) and output.
struct Outcome {
  int code = -1;
  std::string out, err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Starts `program` with `args` in `cwd`; stdout and stderr go to stdout.txt and stderr.txt there.
inline pid_t spawn_program(const std::string& program, const std::vector<std::string>& args,
                           const std::filesystem::path& cwd) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (chdir(cwd.c_str()) != 0) _exit(127);
    const int out = open("stdout.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open("stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, 1);
    dup2(err, 2);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(program.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(program.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

/// Waits for `pid` and collects what it wrote in `cwd`.
inline Outcome finish(pid_t pid, const std::filesystem::path& cwd) {
  int status = 0;
  waitpid(pid, &status, 0);
  Outcome o;
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  o.out = slurp(cwd / "stdout.txt");
  o.err = slurp(cwd / "stderr.txt");
  return o;
}

#ifdef DCTWIN_EXE
/// Starts the `dctwin` command built with the tests.
inline pid_t spawn(const std::vector<std::string>& args, const std::filesystem::path& cwd) {
  return spawn_program(DCTWIN_EXE, args, cwd);
}

/// Runs the `dctwin` command to its end.
inline Outcome run_dctwin(const std::vector<std::string>& args, const std::filesystem::path& cwd) {
  return finish(spawn(args, cwd), cwd);
}
#endif

}  // namespace test_support
