#pragma once
#include <lo/lo.h>
