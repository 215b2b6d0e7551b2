// CPeopleHOG: the C binding of OpenCV's HOG people detector (cv::HOGDescriptor with
// getDefaultPeopleDetector(): Dalal & Triggs' 64x128 pedestrian SVM, Debian libopencv-objdetect 4.6).
//
// Plain C types only: the caller hands over an 8-bit image (1 channel luma or 3 channels packed RGB, rows
// `stride` bytes apart) and a caller-owned array for the results; nothing allocated here is handed back and
// no C++ exception crosses this boundary (cv::Exception and std::exception become an error code).
// Thread-safe: the detector is built once (a function-local static) and only read afterwards.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/// One person, in the input's pixels (before `upscale`), with the SVM's score (distance from the hyperplane: 0 is the
/// default decision threshold, clear pedestrians score about 0.5-2).
typedef struct {
    int x, y, width, height;
    double weight;
} vf_hog_box;

/// Search parameters (see cv::HOGDescriptor::detectMultiScale).
typedef struct {
    /// SVM score a window needs (0: OpenCV's default).
    double hit_threshold;
    /// Window step in pixels, both axes (a multiple of the 8 px cell: 4 and 8 are usual).
    int win_stride;
    /// Padding added around the image, pixels, both axes (lets people touching the border be found).
    int padding;
    /// Pyramid step (> 1, e.g. 1.05).
    double scale;
    /// Windows a grouped box needs, minus one (OpenCV's groupThreshold; 0 keeps every raw window).
    int group_threshold;
    /// Factor the image is resized by before the search (cv::resize, bilinear; 1: as given). Boxes come back
    /// in the input's pixels. Upscaling lets people smaller than the 64x128 window be found.
    double upscale;
} vf_hog_params;

/// Errors returned instead of a count.
enum {
    /// A null pointer, a size <= 0, a stride shorter than a row, or a channel count other than 1 or 3.
    VF_HOG_BAD_ARGUMENT = -1,
    /// OpenCV threw (message copied into the caller's buffer when one is given).
    VF_HOG_OPENCV_ERROR = -2,
    /// Anything else threw (e.g. std::bad_alloc).
    VF_HOG_OTHER_ERROR = -3,
};

/// People in `pixels` (`channels` 1 = luma, 3 = RGB). Writes at most `capacity` boxes into `out` (the
/// strongest first) and returns how many it wrote, or a negative VF_HOG_* error with a NUL-terminated
/// message in `error` (at most `error_size` bytes; `error` may be NULL).
int vf_hog_detect_people(const unsigned char *pixels, int width, int height, int stride, int channels,
                         const vf_hog_params *params, vf_hog_box *out, int capacity, char *error, int error_size);

/// How many pyramid levels vf_hog_detect_people searches a `width` x `height` image at (after `upscale`: from scale 1
/// up by `scale` while the 64x128 window fits, OpenCV's rule), or VF_HOG_BAD_ARGUMENT.
int vf_hog_levels(int width, int height, const vf_hog_params *params);

/// A slice of vf_hog_detect_people's search: pyramid levels `first_level` ..< `first_level + level_count` only (each
/// level resized and searched as detectMultiScale does), ungrouped (params->group_threshold is not used): the raw
/// windows in the searched image's pixels (after `upscale`) with their SVM scores, at most `capacity`. Returns how
/// many it wrote or a negative VF_HOG_* error. The windows of every level, grouped by vf_hog_group, give what
/// vf_hog_detect_people gives, so a search can be spread over several calls (frames).
int vf_hog_detect_levels(const unsigned char *pixels, int width, int height, int stride, int channels,
                         const vf_hog_params *params, int first_level, int level_count, vf_hog_box *out, int capacity,
                         char *error, int error_size);

/// Groups raw windows from vf_hog_detect_levels as detectMultiScale does (cv::HOGDescriptor::groupRectangles, eps 0.2,
/// `group_threshold`); writes at most `capacity` boxes, strongest first, in the input's pixels (1 / `upscale`).
int vf_hog_group(const vf_hog_box *windows, int count, int group_threshold, double upscale, vf_hog_box *out, int capacity);

/// The detector window (64 x 128).
void vf_hog_window(int *width, int *height);

#ifdef __cplusplus
}
#endif
