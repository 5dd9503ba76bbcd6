#include <vector>

int count_positive(const std::vector<int>& cells) {
    int n = 0;
    for (int i = 0; i < cells.size(); i++) {
        if (cells[i] > 0) n++;
    }
    return n;
}
