# PAI_SANITIZE builds everything with ASan + UBSan; UB aborts so tests fail on it.
if(PAI_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
