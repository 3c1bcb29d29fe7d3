#pragma once
#include <speex/speex_preprocess.h>
#include <speex/speex_echo.h>
