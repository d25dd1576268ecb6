// The roofcast executable: all logic lives in the layer libraries; this only hands over argv.
#include "cli/app.hpp"

int main(int argc, char** argv) {
    return roofcast::cli::run(argc, argv);
}
