# pai_folder_library(<target> <folder> [DEPS <libraries>...]): the *.cpp of <folder> (relative
# to the calling CMakeLists.txt) as one static library, with the project root on its include
# path, linking <libraries> publicly: one library per folder of a program's layers
# (docs/compiler-layers.md).
function(pai_folder_library target folder)
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${folder}/*.cpp)
  add_library(${target} STATIC ${sources})
  target_include_directories(${target} PUBLIC ${CMAKE_SOURCE_DIR})
  target_link_libraries(${target} PUBLIC ${ARG_DEPS})
  pai_warnings(${target})
endfunction()
