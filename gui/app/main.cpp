// dctwin-gui: the desktop application (see application.hpp for the command line).
#include "application.hpp"

int main(int argc, char** argv) { return dctwin::gui::run_application(argc, argv); }
