# `cpack -G DEB` in the build folder: a Debian package of everything installed (programs,
# templates, schemas, SDK, NCCL profiler plugin, completions, gzipped man pages) and, in
# share/doc/pai, its machine-readable copyright file and its changelog (changelog.gz), so
# that lintian finds no error in it (tests/install/package_test.sh).
# The address the project's commits carry; lintian refuses one on localhost (bogus-mail-host).
set(PAI_PACKAGE_CONTACT "pai maintainers <maintainers@users.noreply.a-seed-14320226.example>"
    CACHE STRING "The package's Maintainer field")

set(PAI_PACKAGE_DOC_DIR ${CMAKE_BINARY_DIR}/package)
add_custom_command(
  OUTPUT ${PAI_PACKAGE_DOC_DIR}/changelog.gz
  COMMAND ${CMAKE_COMMAND} -DSOURCE=${CMAKE_SOURCE_DIR}/CHANGELOG.md
          -DOUTPUT=${PAI_PACKAGE_DOC_DIR}/changelog -DVERSION=${PROJECT_VERSION}
          -DMAINTAINER=${PAI_PACKAGE_CONTACT} -DGZIP=${PAI_GZIP}
          -P ${CMAKE_SOURCE_DIR}/cmake/package/DebianChangelog.cmake
  DEPENDS ${CMAKE_SOURCE_DIR}/CHANGELOG.md ${CMAKE_SOURCE_DIR}/cmake/package/DebianChangelog.cmake
  COMMENT "Writing the package's changelog.gz"
  VERBATIM)
add_custom_target(pai-package-doc ALL DEPENDS ${PAI_PACKAGE_DOC_DIR}/changelog.gz)
install(FILES ${CMAKE_SOURCE_DIR}/cmake/package/copyright ${PAI_PACKAGE_DOC_DIR}/changelog.gz
        DESTINATION share/doc/pai)

# The programs look for their templates under CMAKE_INSTALL_PREFIX, so the package installs
# there: configure with -DCMAKE_INSTALL_PREFIX=/usr for a package that installs into /usr.
set(CPACK_PACKAGE_NAME pai)
set(CPACK_PACKAGE_VENDOR "pai")
set(CPACK_PACKAGE_CONTACT "${PAI_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "declarative distributed training jobs for bare-metal GPU clusters")
# CPack writes the summary as the synopsis, this as the extended description below it.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "pai-compile checks a declarative job spec (YAML, Jsonnet, or an OpenPAI job
file) and renders it into a plan, MPI hostfiles, env scripts and Slurm or
Kubernetes manifests. pai-launch runs the plan on every node: sanity checks
(GPU, burn, NCCL, network), rendezvous, the training processes with their
environment, supervision and fault tolerance.")
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# Without their debug info the programs are a tenth of the size.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# The shared libraries' packages (libyaml-cpp, libjsonnet, ...), found by dpkg-shlibdeps.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3, bash-completion")
include(CPack)
