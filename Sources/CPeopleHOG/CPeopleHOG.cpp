// CPeopleHOG: see include/CPeopleHOG.h. Every C++ exception is caught here.
#include "CPeopleHOG.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <numeric>
#include <vector>

namespace {

/// The default people detector, built on first use (thread-safe static initialisation) and read-only after.
const cv::HOGDescriptor &detector() {
    static const cv::HOGDescriptor hog = [] {
        cv::HOGDescriptor h;  // 64x128 window, 16x16 blocks, 8x8 cells, 9 bins: the layout the SVM was trained on
        h.setSVMDetector(cv::HOGDescriptor::getDefaultPeopleDetector());
        return h;
    }();
    return hog;
}

void copyMessage(char *error, int size, const char *what) {
    if (error != nullptr && size > 0) std::snprintf(error, static_cast<size_t>(size), "%s", what);
}

}  // namespace

extern "C" void vf_hog_window(int *width, int *height) {
    if (width) *width = 64;
    if (height) *height = 128;
}

extern "C" int vf_hog_detect_people(const unsigned char *pixels, int width, int height, int stride, int channels,
                                    const vf_hog_params *params, vf_hog_box *out, int capacity, char *error,
                                    int error_size) {
    if (pixels == nullptr || params == nullptr || (out == nullptr && capacity > 0) || width <= 0 || height <= 0 ||
        (channels != 1 && channels != 3) || stride < width * channels || capacity < 0 || params->scale <= 1.0 ||
        params->win_stride <= 0 || params->padding < 0 || params->group_threshold < 0 ||
        !(params->upscale > 0.0 && params->upscale <= 8.0)) {
        copyMessage(error, error_size, "bad argument");
        return VF_HOG_BAD_ARGUMENT;
    }
    try {
        // A header over the caller's pixels: no copy. HOG reads RGB/BGR alike (per-pixel max gradient over channels).
        cv::Mat image(height, width, channels == 1 ? CV_8UC1 : CV_8UC3, const_cast<unsigned char *>(pixels),
                      static_cast<size_t>(stride));
        cv::Mat searched = image;
        if (params->upscale != 1.0) cv::resize(image, searched, cv::Size(), params->upscale, params->upscale, cv::INTER_LINEAR);
        std::vector<cv::Rect> found;
        std::vector<double> weights;
        detector().detectMultiScale(searched, found, weights, params->hit_threshold,
                                    cv::Size(params->win_stride, params->win_stride),
                                    cv::Size(params->padding, params->padding), params->scale,
                                    static_cast<double>(params->group_threshold), false);
        std::vector<size_t> order(found.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            double wa = a < weights.size() ? weights[a] : 0, wb = b < weights.size() ? weights[b] : 0;
            return wa > wb;
        });
        int n = 0;
        for (size_t i : order) {
            if (n >= capacity) break;
            const cv::Rect &r = found[i];
            const double s = 1.0 / params->upscale;
            out[n++] = vf_hog_box{static_cast<int>(r.x * s + 0.5), static_cast<int>(r.y * s + 0.5),
                                  static_cast<int>(r.width * s + 0.5), static_cast<int>(r.height * s + 0.5),
                                  i < weights.size() ? weights[i] : 0.0};
        }
        return n;
    } catch (const cv::Exception &e) {
        copyMessage(error, error_size, e.what());
        return VF_HOG_OPENCV_ERROR;
    } catch (const std::exception &e) {
        copyMessage(error, error_size, e.what());
        return VF_HOG_OTHER_ERROR;
    } catch (...) {
        copyMessage(error, error_size, "unknown C++ exception");
        return VF_HOG_OTHER_ERROR;
    }
}
