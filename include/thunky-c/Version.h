/*===- thunky-c/Version.h - the one version of thunky -------------------===*
 *
 * Every tool's --version, the plugins' info and the installed CMake and
 * pkg-config files take the version from here (CMake reads this file), so
 * a program built against an installed thunky can check what it got.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_VERSION_H
#define THUNKY_C_VERSION_H

#define THUNKY_VERSION_MAJOR 0
#define THUNKY_VERSION_MINOR 2
#define THUNKY_VERSION_PATCH 0
#define THUNKY_VERSION "0.2.0"

#endif /* THUNKY_C_VERSION_H */
