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


/// Sorts grouped boxes by weight (strongest first) and writes at most `capacity` of them into `out`, mapped back to
/// the input's pixels (1 / `upscale`).
int sortedOut(const std::vector<cv::Rect> &found, const std::vector<double> &weights, double upscale, vf_hog_box *out,
              int capacity) {
    std::vector<size_t> order(found.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        double wa = a < weights.size() ? weights[a] : 0, wb = b < weights.size() ? weights[b] : 0;
        return wa > wb;
    });
    int n = 0;
    const double s = 1.0 / upscale;
    for (size_t i : order) {
        if (n >= capacity) break;
        const cv::Rect &r = found[i];
        out[n++] = vf_hog_box{static_cast<int>(r.x * s + 0.5), static_cast<int>(r.y * s + 0.5), static_cast<int>(r.width * s + 0.5),
                              static_cast<int>(r.height * s + 0.5), i < weights.size() ? weights[i] : 0.0};
    }
    return n;
}

/// Runs `search`; an exception becomes its error code with its text in `error` (the one place the searches catch).
template <typename Search> int guarded(char *error, int error_size, Search search) {
    try {
        return search();
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
    return guarded(error, error_size, [&]() -> int {
        // A header over the caller's pixels: no copy. HOG reads RGB/BGR alike (per-pixel max gradient over channels).
        cv::Mat image(height, width, channels == 1 ? CV_8UC1 : CV_8UC3, const_cast<unsigned char *>(pixels),
                      static_cast<size_t>(stride));
        cv::Mat searched = image;
        if (params->upscale != 1.0) cv::resize(image, searched, cv::Size(), params->upscale, params->upscale, cv::INTER_LINEAR);
        // No window fits (a strip of a frame, 1920x80 analysed at 320x13): nobody. OpenCV 4.6's detectMultiScale
        // crashes on an image smaller than its window instead of finding nothing.
        const cv::Size win = detector().winSize;
        if (searched.cols < win.width || searched.rows < win.height) return 0;
        std::vector<cv::Rect> found;
        std::vector<double> weights;
        detector().detectMultiScale(searched, found, weights, params->hit_threshold,
                                    cv::Size(params->win_stride, params->win_stride),
                                    cv::Size(params->padding, params->padding), params->scale,
                                    static_cast<double>(params->group_threshold), false);
        return sortedOut(found, weights, params->upscale, out, capacity);
    });
}

namespace {

/// The pyramid scales detectMultiScale searches an image of `size` at (OpenCV 4.6's rule: from 1 up by `step`
/// while the window still fits).
std::vector<double> levelScales(cv::Size size, double step) {
    const cv::Size win = detector().winSize;
    std::vector<double> scales;
    double scale = 1.0;
    int levels = 0;
    for (; levels < detector().nlevels; levels++) {
        scales.push_back(scale);
        if (cvRound(size.width / scale) < win.width || cvRound(size.height / scale) < win.height || step <= 1) break;
        scale *= step;
    }
    scales.resize(static_cast<size_t>(std::max(levels, 1)));
    return scales;
}

bool badParams(const unsigned char *pixels, int width, int height, int stride, int channels, const vf_hog_params *params) {
    return pixels == nullptr || params == nullptr || width <= 0 || height <= 0 || (channels != 1 && channels != 3) ||
           stride < width * channels || params->scale <= 1.0 || params->win_stride <= 0 || params->padding < 0 ||
           params->group_threshold < 0 || !(params->upscale > 0.0 && params->upscale <= 8.0);
}

}  // namespace

extern "C" int vf_hog_levels(int width, int height, const vf_hog_params *params) {
    if (params == nullptr || width <= 0 || height <= 0 || params->scale <= 1.0 || !(params->upscale > 0.0 && params->upscale <= 8.0))
        return VF_HOG_BAD_ARGUMENT;
    const cv::Size searched(cvRound(width * params->upscale), cvRound(height * params->upscale));
    return static_cast<int>(levelScales(searched, params->scale).size());
}

extern "C" int vf_hog_detect_levels(const unsigned char *pixels, int width, int height, int stride, int channels,
                                    const vf_hog_params *params, int first_level, int level_count, vf_hog_box *out,
                                    int capacity, char *error, int error_size) {
    if (badParams(pixels, width, height, stride, channels, params) || (out == nullptr && capacity > 0) || capacity < 0 ||
        first_level < 0 || level_count < 0) {
        copyMessage(error, error_size, "bad argument");
        return VF_HOG_BAD_ARGUMENT;
    }
    return guarded(error, error_size, [&]() -> int {
        cv::Mat image(height, width, channels == 1 ? CV_8UC1 : CV_8UC3, const_cast<unsigned char *>(pixels),
                      static_cast<size_t>(stride));
        cv::Mat searched = image;
        if (params->upscale != 1.0) cv::resize(image, searched, cv::Size(), params->upscale, params->upscale, cv::INTER_LINEAR);
        // No window fits: nobody (as in vf_hog_detect_people).
        const cv::Size win = detector().winSize;
        if (searched.cols < win.width || searched.rows < win.height) return 0;
        const std::vector<double> scales = levelScales(searched.size(), params->scale);
        const cv::HOGDescriptor &hog = detector();
        int n = 0;
        cv::Mat smaller;
        std::vector<cv::Point> locations;
        std::vector<double> weights;
        const int end = std::min(static_cast<int>(scales.size()), first_level + level_count);
        for (int i = first_level; i < end; i++) {
            const double scale = scales[static_cast<size_t>(i)];
            const cv::Size sz(cvRound(searched.cols / scale), cvRound(searched.rows / scale));
            if (sz == searched.size()) smaller = searched;
            else cv::resize(searched, smaller, sz, 0, 0, cv::INTER_LINEAR_EXACT);
            hog.detect(smaller, locations, weights, params->hit_threshold, cv::Size(params->win_stride, params->win_stride),
                       cv::Size(params->padding, params->padding));
            const cv::Size window(cvRound(hog.winSize.width * scale), cvRound(hog.winSize.height * scale));
            for (size_t j = 0; j < locations.size() && n < capacity; j++) {
                out[n++] = vf_hog_box{cvRound(locations[j].x * scale), cvRound(locations[j].y * scale), window.width,
                                      window.height, j < weights.size() ? weights[j] : 0.0};
            }
        }
        return n;
    });
}

extern "C" int vf_hog_group(const vf_hog_box *windows, int count, int group_threshold, double upscale, vf_hog_box *out,
                            int capacity) {
    if ((windows == nullptr && count > 0) || count < 0 || (out == nullptr && capacity > 0) || capacity < 0 ||
        group_threshold < 0 || !(upscale > 0.0 && upscale <= 8.0))
        return VF_HOG_BAD_ARGUMENT;
    try {
        std::vector<cv::Rect> found;
        std::vector<double> weights;
        for (int i = 0; i < count; i++) {
            found.emplace_back(windows[i].x, windows[i].y, windows[i].width, windows[i].height);
            weights.push_back(windows[i].weight);
        }
        // detectMultiScale's own grouping (eps 0.2, the group's strongest weight).
        detector().groupRectangles(found, weights, group_threshold, 0.2);
        return sortedOut(found, weights, upscale, out, capacity);
    } catch (...) {
        return VF_HOG_OTHER_ERROR;
    }
}
