// secrets_main.cpp: stealscan-secrets, the secret scanner's program. `stealscan
// secrets ARGS...` runs it with ARGS (main.cpp says why it is a program of its
// own); run directly, it takes the same arguments.
#include <string>
#include <vector>

#include "output/diagnostics.hpp"
#include "secrets/run_secrets.hpp"

int main(int argc, char** argv) {
  stealscan::Diagnostics diag;
  return stealscan::secrets::secrets_main(std::vector<std::string>(argv + 1, argv + argc), diag);
}
