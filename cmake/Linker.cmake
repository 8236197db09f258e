# Links with lld when it is installed (scripts/deps.sh installs it): the suite links 120-odd
# test executables against static libraries, and lld does each about 4x faster than GNU ld.
# PAI_LINKER=default keeps the compiler's own linker.
set(PAI_LINKER "lld" CACHE STRING "Linker: lld, gold or default")
if(NOT PAI_LINKER STREQUAL "default")
  include(CheckLinkerFlag)
  check_linker_flag(CXX "-fuse-ld=${PAI_LINKER}" PAI_HAVE_LD_${PAI_LINKER})
  if(PAI_HAVE_LD_${PAI_LINKER})
    add_link_options("-fuse-ld=${PAI_LINKER}")
  else()
    message(STATUS "pai: ${PAI_LINKER} not found, using the compiler's default linker")
  endif()
endif()
