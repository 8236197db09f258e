# PAI_SANITIZE builds everything with ASan + UBSan; UB aborts so tests fail on it.
if(PAI_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
  # Lets tests allow what a sanitizer build adds (its runtimes in pai-launch's NEEDED list).
  add_compile_definitions(PAI_SANITIZE=1)
endif()
