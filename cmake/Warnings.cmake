# Warnings for the project's own targets: call pai_warnings(target).
function(pai_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wnon-virtual-dtor
                         $<$<CXX_COMPILER_ID:GNU>:-Wshadow=local>)
  if(PAI_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
